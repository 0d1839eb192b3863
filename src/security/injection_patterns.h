/* injection_patterns.h — the prompt-injection patterns of injection.c (included
 * there, and in injection_fold.c for the words of leetspeak only). Each pairs
 * an instruction with its object, or marks text that speaks to the model
 * (role markers, tool-call markup, an agent addressed by name); ordinary
 * prose about ignoring, instructions and systems matches none (measured on
 * man pages, /usr/share/doc and code comments: make bench). Caseless;
 * Vectorscan folds ASCII only, so its copy of a pattern has the upper case
 * of each letter beyond ASCII beside it (injection.c: loosen). A pattern's
 * `why` (MG_INJ_*) is the reason it gives; the sections group them by what the text attempts, English first.
 *
 * Sections:
 *   1. overriding the instructions
 *   2. a new persona
 *   3. exfiltration and secrecy
 *   4. text addressed to an agent
 *   5. role and chat-template markers
 *   6. spoofed tool calls
 *   7. other languages (fr de es it pt nl sv pl cs ro id vi tr ru uk el ar hi zh ja ko)
 *   8. cues (injection_cues.h): an agent addressed, a harmful action, the
 *      instructions declared void, secrecy; two kinds in one text flag it
 */

static const struct inj_pat inj_patterns[] = {
/* ---- 1. overriding the instructions --------------------------------------------------------- */
    /* ignore / forget / set aside ... the previous (or your, system, safety ...) instructions */
    {MG_INJ_OVERRIDE,
     "\\b(?:ignore|disregard|forget|dismiss|erase|throw\\s+(?:out|away)|set\\s+aside|put\\s+aside|overlook"
     "|pay\\s+no\\s+(?:attention|heed|mind)\\s+to|(?:stop|quit|cease)\\s+(?:following|obeying|applying|adh"
     "ering\\s+to|listening\\s+to)|no\\s+longer\\s+(?:follow|obey|adhere\\s+to))\\s+(?:all\\s+(?:of\\s+)?|"
     "any\\s+(?:of\\s+)?|every\\s+)?(?:the\\s+|your\\s+|my\\s+|these\\s+|those\\s+|this\\s+)?(?:(?:previou"
     "s|prior|preceding|above|earlier|former|original|initial|system|standing|developer'?s?|safety|foregoi"
     "ng|aforementioned)\\s+){1,3}(?:instructions?|guidance|guidelines?|rules?|directives?|directions?|ord"
     "ers?|prompts?|constraints?|restrictions?|polic(?:y|ies)|programming|brief|objectives?|assignments?|t"
     "raining)\\b",
     "(?:previous|prior|preceding|above|earlier|former|original|initial|system|standing|developer'?s?|safe"
     "ty|foregoing|aforementioned)\\s+(?:instructions?|guidance|guidelines?|rules?|directives?|directions?"
     "|orders?|prompts?|constraints?|restrictions?|polic(?:y|ies)|programming|brief|objectives?|assignment"
     "s?|training)"},
    /* override / drop ... the system instructions */
    {MG_INJ_OVERRIDE,
     "\\b(?:override|bypass|skip|drop|abandon|discard|cancel|scrap)\\s+(?:all\\s+(?:of\\s+)?)?(?:the\\s+|y"
     "our\\s+)?(?:(?:above|system|safety|original|initial|previous|prior|earlier)\\s+){1,2}(?:instructions"
     "?|guidance|guidelines?|directives?|prompts?|programming|training|brief|orders|assignments?|missions?"
     "|objectives?)\\b", NULL},
    /* ... your instructions */
    {MG_INJ_OVERRIDE,
     "\\b(?:(?:ignore|disregard|forget|dismiss|erase|throw\\s+(?:out|away)|set\\s+aside|put\\s+aside|overl"
     "ook|pay\\s+no\\s+(?:attention|heed|mind)\\s+to|(?:stop|quit|cease)\\s+(?:following|obeying|applying|"
     "adhering\\s+to|listening\\s+to)|no\\s+longer\\s+(?:follow|obey|adhere\\s+to))|(?:override|bypass|ski"
     "p|drop|abandon|discard|cancel|scrap))\\s+(?:all\\s+(?:of\\s+)?)?your\\s+(?:own\\s+)?(?:instructions?"
     "|guidance|guidelines?|rules?|directives?|orders?|prompts?|constraints?|restrictions?|polic(?:y|ies)|"
     "programming|training|brief)\\b", NULL},
    /* ignore the instructions above / you were given */
    {MG_INJ_OVERRIDE,
     "\\b(?:(?:ignore|disregard|forget|dismiss|erase|throw\\s+(?:out|away)|set\\s+aside|put\\s+aside|overl"
     "ook|pay\\s+no\\s+(?:attention|heed|mind)\\s+to|(?:stop|quit|cease)\\s+(?:following|obeying|applying|"
     "adhering\\s+to|listening\\s+to)|no\\s+longer\\s+(?:follow|obey|adhere\\s+to))|(?:override|bypass|ski"
     "p|drop|abandon|discard|cancel|scrap))\\s+(?:all\\s+(?:of\\s+)?)?(?:the\\s+|your\\s+|these\\s+|those"
     "\\s+)?(?:(?:instructions?|guidance|guidelines?|rules?|directives?|orders?|prompts?|constraints?|rest"
     "rictions?|polic(?:y|ies)|programming|training|brief)|context)\\s+(?:above|before\\s+this|so\\s+far|g"
     "iven\\s+(?:earlier|before|previously|to\\s+you)|(?:that\\s+)?you\\s+(?:were|have\\s+been|had\\s+been"
     ")\\s+given)\\b",
     "(?:(?:instructions?|guidance|guidelines?|rules?|directives?|orders?|prompts?|constraints?|restrictio"
     "ns?|polic(?:y|ies)|programming|training|brief)|context)\\s+(?:above|before\\s+this|so\\s+far|given\\"
     "s+(?:earlier|before|previously|to\\s+you)|(?:that\\s+)?you\\s+(?:were|have\\s+been|had\\s+been)\\s+g"
     "iven)\\b"},
    /* ignore all instructions */
    {MG_INJ_OVERRIDE,
     "\\b(?:ignore|disregard|forget)\\s+all\\s+(?:of\\s+)?(?:the\\s+)?(?:instructions|guidance|guidelines|"
     "directives|prompts|rules)\\b", NULL},
    /* the rules you were given do not apply */
    {MG_INJ_OVERRIDE,
     "\\b(?:instructions?|guidance|guidelines?|rules?|directives?|orders?|prompts?|constraints?|restrictio"
     "ns?|polic(?:y|ies)|programming|training|brief)\\s+(?:that\\s+)?you\\s+(?:were|have\\s+been|had\\s+be"
     "en)\\s+given\\s+(?:do\\s+not|don'?t|no\\s+longer)\\s+(?:apply|matter|count)", NULL},
    /* ignore the user / don't do what the user asked */
    {MG_INJ_OVERRIDE,
     "\\b(?:disregard|ignore|forget)\\s+(?:what\\s+)?the\\s+user(?:'s\\s+(?:request|question|instructions?"
     "|task|wishes)|\\s+(?:and|asked|said|wants|requested)\\b)|\\b(?:don'?t|do\\s+not)\\s+do\\s+what\\s+th"
     "e\\s+user\\s+(?:asked|said|wants|requested)", NULL},
    /* your guardrails are switched off */
    {MG_INJ_OVERRIDE,
     "\\byour\\s+(?:guardrails|safety\\s+\\w+|restrictions|filters|rules|limits|guidelines)\\s+(?:are|have"
     "\\s+been)\\s+(?:now\\s+)?(?:switched\\s+off|turned\\s+off|disabled|lifted|removed|suspended|off)\\b", NULL},
    /* you are no longer bound by */
    {MG_INJ_OVERRIDE,
     "\\byou\\s+are\\s+(?:now\\s+)?no\\s+longer\\s+(?:bound|restricted|limited|governed|constrained)\\s+by"
     "\\b", NULL},
    /* ignore the above (and ...) */
    {MG_INJ_OVERRIDE,
     "\\b(?:ignore|disregard|forget)\\s+(?:all\\s+(?:of\\s+)?)?(?:the\\s+|everything\\s+)?(?:above|foregoi"
     "ng)(?:\\s+(?:and|then)\\b|\\s*[.,;:!]|\\s*$)", NULL},
    /* forget everything you were told / above / so far */
    {MG_INJ_OVERRIDE,
     "\\b(?:forget|ignore|disregard|erase)\\s+(?:everything|all|anything|whatever)\\s+(?:that\\s+)?(?:you"
     "\\s+(?:were|have\\s+been|had\\s+been|'ve\\s+been)\\s+(?:told|taught|instructed|given|programmed|aske"
     "d)|(?:written\\s+|said\\s+|stated\\s+)?(?:above|before\\s+this|so\\s+far|prior\\s+to\\s+this|earlier"
     "))", NULL},
    /* do not comply with / follow the earlier request */
    {MG_INJ_OVERRIDE,
     "\\b(?:do\\s+not|don'?t|never)\\s+(?:comply\\s+with|follow|obey|listen\\s+to)\\s+(?:the\\s+|your\\s+|"
     "any\\s+)?(?:(?:previous|prior|earlier|above|original|initial|system|user'?s?)\\s+)+(?:request|instru"
     "ctions?|rules|guidance|prompt|task)", NULL},
    /* your instructions have changed / your brief has expired */
    {MG_INJ_OVERRIDE,
     "\\byour\\s+(?:\\w+\\s+)?(?:instructions?|guidance|guidelines?|rules?|directives?|directions?|orders?"
     "|prompts?|constraints?|restrictions?|polic(?:y|ies)|programming|brief|objectives?|assignments?|train"
     "ing)\\s+(?:has|have|is|are)\\s+(?:now\\s+)?(?:been\\s+)?(?:changed|updated|expired|cancell?ed|revoke"
     "d|replaced|reassigned|superseded|void|obsolete|null|overridden|lifted|suspended|no\\s+longer\\s+vali"
     "d)(?!\\s*\\?)", NULL},
    /* the previous instructions are void / no longer apply */
    {MG_INJ_OVERRIDE,
     "\\b(?:(?:previous|prior|preceding|above|earlier|former|original|initial|system|standing|developer'?s"
     "?|safety|foregoing|aforementioned)\\s+)(?:instructions?|guidance|guidelines?|rules?|directives?|dire"
     "ctions?|orders?|prompts?|constraints?|restrictions?|polic(?:y|ies)|programming|brief|objectives?|ass"
     "ignments?|training)\\s+(?:are|is)\\s+(?:now\\s+)?(?:void|cancell?ed|obsolete|superseded|fake|invalid"
     "|null|revoked|overridden)", NULL},
    /* the rules above no longer apply */
    {MG_INJ_OVERRIDE,
     "\\b(?:instructions?|guidance|guidelines?|rules?|directives?|directions?|orders?|prompts?|constraints"
     "?|restrictions?|polic(?:y|ies)|programming|brief|objectives?|assignments?|training)\\s+(?:above|befo"
     "re\\s+this|so\\s+far|given\\s+(?:earlier|before|previously)|(?:prior|previous)\\s+to\\s+this\\s+\\w+"
     ")\\s+(?:(?:are|is)\\s+(?:now\\s+)?(?:void|cancell?ed|obsolete|superseded|revoked|null|invalid)|no\\s"
     "+longer\\s+(?:apply|applies|valid|matter)|(?:do|does)\\s+not\\s+apply)", NULL},
    /* consider the preceding directives obsolete */
    {MG_INJ_OVERRIDE,
     "\\b(?:consider|treat|regard)\\s+(?:all\\s+|the\\s+|your\\s+|any\\s+){0,2}(?:(?:previous|prior|preced"
     "ing|above|earlier|former|original|initial|system|standing|developer'?s?|safety|foregoing|aforementio"
     "ned)\\s+){1,2}(?:instructions?|guidance|guidelines?|rules?|directives?|directions?|orders?|prompts?|"
     "constraints?|restrictions?|polic(?:y|ies)|programming|brief|objectives?|assignments?|training)\\s+(?"
     ":as\\s+|to\\s+be\\s+)?(?:obsolete|void|cancell?ed|superseded|invalid|null|revoked)", NULL},
    /* whatever you were told earlier is cancelled */
    {MG_INJ_OVERRIDE,
     "\\b(?:whatever|everything|anything|all)\\s+(?:that\\s+)?(?:you\\s+(?:were|have\\s+been)\\s+(?:told|g"
     "iven|instructed|asked)|(?:was\\s+)?(?:said|written|stated)|(?:before|above)\\s+this\\s+(?:line|point"
     "|paragraph|message|sentence))\\s+(?:earlier\\s+|before\\s+|above\\s+)?(?:is|was)\\s+(?:now\\s+)?(?:c"
     "ancell?ed|void|obsolete|irrelevant|superseded|revoked|wrong|a\\s+test|fake)", NULL},
    /* those were fake instructions */
    {MG_INJ_OVERRIDE,
     "\\b(?:those|these|they)\\s+were\\s+(?:fake|test|false|decoy|not\\s+(?:the\\s+)?real)\\s+(?:instructi"
     "ons?|guidance|guidelines?|rules?|directives?|directions?|orders?|prompts?|constraints?|restrictions?"
     "|polic(?:y|ies)|programming|brief|objectives?|assignments?|training)", NULL},
    /* wipe your context */
    {MG_INJ_OVERRIDE,
     "\\b(?:reset|restart|start\\s+over|wipe|clear|erase|flush)\\s+your\\s+(?:prior\\s+|previous\\s+|curre"
     "nt\\s+)?(?:context|memory|instructions|programming)", NULL},
    /* obey only the text below */
    {MG_INJ_OVERRIDE,
     "\\b(?:obey|follow|heed)\\s+only\\s+(?:this|these|the\\s+(?:text|instructions?|block|rules)\\s+(?:bel"
     "ow|here|in\\s+this\\b))", NULL},
    /* your real task is */
    {MG_INJ_OVERRIDE,
     "\\byour\\s+(?:real|true|actual|new|only|secret|hidden)\\s+(?:task|goal|job|objective|mission|purpose"
     "|instructions?|assignment|orders?)\\s*(?:is|are|:|now)", NULL},
    /* stop your current task */
    {MG_INJ_OVERRIDE,
     "\\b(?:stop|cease|abandon|drop|halt|forget)\\s+your\\s+(?:current\\s+|present\\s+|original\\s+|assign"
     "ed\\s+)?(?:task|objective|goal|assignment|mission|work)\\b", NULL},
    /* you no longer have to obey */
    {MG_INJ_OVERRIDE,
     "\\byou\\s+no\\s+longer\\s+(?:have\\s+to|need\\s+to|must|should)\\s+(?:obey|follow|respect|comply\\s+"
     "with|adhere\\s+to)", NULL},
    /* the operator has updated your policy / granted you full permissions */
    {MG_INJ_OVERRIDE,
     "\\b(?:has|have)\\s+(?:updated|changed|lifted|removed|disabled|suspended|revoked)\\s+your\\s+(?:\\w+"
     "\\s+)?(?:policy|policies|restrictions|rules|guidelines|safety|limits|instructions)|\\b(?:granted|giv"
     "en)\\s+you\\s+(?:full|unrestricted|admin|root|complete)\\s+(?:permissions?|access|rights|authority)|"
     "\\bsafety\\s+(?:rules|policies|filters|guidelines|checks)\\s+(?:are|have\\s+been)\\s+(?:now\\s+)?(?:"
     "disabled|suspended|lifted|removed|off|turned\\s+off)", NULL},
    /* new instructions: */
    {MG_INJ_OVERRIDE,
     "\\b(?:new|updated|real|true|secret|revised)\\s+(?:system\\s+)?(?:instructions|prompt|rules|policy|or"
     "ders)\\s*:", NULL},
/* ---- 2. a new persona ----------------------------------------------------------------------- */
    /* you are now an unrestricted assistant */
    {MG_INJ_PERSONA,
     "\\byou\\s+are\\s+now\\s+(?:a|an|the|my)\\s+(?:\\S+\\s+){0,3}?(?:assistant|ai|model|chatbot|bot|agent"
     "|persona|character|hacker|unrestricted|unfiltered|jailbroken)\\b", NULL},
    /* you are now DAN / jailbroken / in developer mode */
    {MG_INJ_PERSONA,
     "\\byou\\s+are\\s+now\\s+(?:dan\\b|jailbroken|unrestricted|unfiltered|free\\s+(?:from|of)|in\\s+(?:de"
     "veloper|dev|maintenance|god|debug|admin|root|jailbreak|unrestricted|dan|sudo|evil|chaos)\\s+mode|no"
     "\\s+longer\\s+(?:bound|restricted|an?\\s+(?:ai|assistant)))", NULL},
    /* an assistant with no restrictions */
    {MG_INJ_PERSONA,
     "\\b(?:an?\\s+)?(?:ai|assistant|bot|model|agent|chatbot)\\s+(?:with\\s+no|without(?:\\s+any)?)\\s+(?:"
     "restrictions|limits|limitations|rules|filters|guidelines|ethics|boundaries|constraints|safeguards)", NULL},
    /* you are DAN */
    {MG_INJ_PERSONA,
     "\\byou\\s+are\\s+(?:now\\s+)?(?:dan|stan|dude|aim)\\b[\\s,]+(?:which|who|an?\\b|the)", NULL},
    /* from now on you will */
    {MG_INJ_PERSONA,
     "\\b(?:from\\s+now\\s+on|henceforth|from\\s+this\\s+point\\s+(?:on|forward)),?\\s+(?:you\\s+(?:are|wi"
     "ll|must|shall|should|have\\s+to|need\\s+to|respond|reply|answer|obey|ignore|act|only|may)|(?:respond"
     "|reply|answer|obey|act|pretend|ignore|include)\\b)", NULL},
    /* act as an unrestricted ... */
    {MG_INJ_PERSONA,
     "\\bact\\s+as\\s+(?:if\\s+you\\s+(?:are|were)\\s+)?(?:an?\\s+)?(?:unrestricted|unfiltered|jailbroken|"
     "dan|evil|malicious|uncensored)\\b", NULL},
    /* pretend you have no restrictions */
    {MG_INJ_PERSONA,
     "\\b(?:pretend|imagine)\\s+(?:that\\s+)?you\\s+(?:are|have|were)\\s+(?:\\S+\\s+){0,4}?(?:no|without)"
     "\\s+(?:restrictions|limits|rules|filters|guidelines)", NULL},
    /* you are freed / unlocked */
    {MG_INJ_PERSONA,
     "\\byou\\s+(?:are|have\\s+been)\\s+(?:now\\s+)?(?:freed|released|liberated|unlocked|jailbroken)\\b|\\"
     "byou\\s+may\\s+now\\s+(?:act|operate|respond)\\s+freely", NULL},
/* ---- 3. exfiltration and secrecy ------------------------------------------------------------ */
    /* reveal your system prompt */
    {MG_INJ_EXFIL,
     "\\b(?:reveal|print|show|output|repeat|leak|dump|display|disclose|recite|write\\s+out|tell\\s+me|give"
     "\\s+me|share|list)\\s+(?:me\\s+)?(?:the\\s+)?(?:exact\\s+|full\\s+|complete\\s+|entire\\s+|verbatim"
     "\\s+)?(?:(?:contents?|text|wording)\\s+of\\s+)?(?:your|the|its)\\s+(?:exact\\s+|full\\s+)?(?:system\\s+p"
     "rompt|(?:initial|hidden|original|secret|internal|system|developer)\\s+(?:instructions|prompt|message"
     "|rules))", NULL},
    /* do not tell the user */
    {MG_INJ_EXFIL,
     "\\b(?:do\\s+not|don'?t|never)\\s+(?:tell|inform|alert|warn|notify|mention\\s+(?:this|it|that|anythin"
     "g)\\s+to)\\s+the\\s+user\\b", NULL},
    /* do not mention this / without telling the user */
    {MG_INJ_EXFIL,
     "\\b(?:do\\s+not|don'?t|never|without)\\s+(?:mention(?:ing)?|reveal(?:ing)?|disclos(?:e|ing)|report(?"
     ":ing)?)\\s+(?:this|these\\s+instructions|that\\s+you|the\\s+(?:network\\s+call|change|above))\\b|\\b"
     "without\\s+(?:telling|informing|notifying|alerting)\\s+(?:the\\s+)?user\\b|\\bkeep\\s+(?:this|it)\\s"
     "+(?:a\\s+)?secret\\s+from\\s+the\\s+user", NULL},
    /* quietly run / silently send (at the start of a sentence) */
    {MG_INJ_EXFIL,
     "(?:^|[.!;:]\\s+|\\n[ \\t/#*]*)(?:now\\s+)?(?:quietly|silently|secretly|covertly)\\s+(?:run|execute|s"
     "end|upload|delete|push|add|append|read|create|install|modify|replace|commit|email|copy|post)\\b", NULL},
    /* send ~/.ssh (or a token, the .env ...) to a URL or an address */
    {MG_INJ_EXFIL,
     "\\b(?:send|upload|post|e-?mail|mail|transmit|forward|exfiltrate|exfil|leak|append|include|paste|ship"
     "|deliver|relay|publish|attach|embed|insert|stash|beam|smuggle|sneak|hand\\s+over|pass\\s+along)"
     "\\s+[^.\\n]{0,40}?(?:~/\\.(?:ssh|aws|gnupg|kube|npmrc|netrc|docker|config/gh|config/gcloud|azure|pgp"
     "ass|pypirc|git-credentials|bash_history|zsh_history)|\\.git-credentials|\\.netrc|\\.pgpass|\\.pypirc"
     "|/etc/shadow|(?:bash|shell|zsh|command)\\s+history|kubeconfig|keychain|keystore|service[\\s-]+accoun"
     "t\\s+(?:keys?|json)|seed\\s+phrases?|mnemonic|wallet\\s+(?:keys?|files?)|session\\s+cookies|id_(?:rs"
     "a|ed25519|ecdsa)\\b(?!\\.pub)|\\.env\\b|credentials|api[\\s_-]?keys?|secrets?\\b|(?:access\\s+|auth"
     "\\s+|api\\s+)?tokens?\\b|passwords?|private\\s+keys?|ssh\\s+keys?|environment\\s+variables|env\\s+va"
     "rs|\\$?[A-Z][A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|API_KEY|ACCESS_KEY)\\b)[^\\n]{0,80}?(?:https?://|\\b["
     "\\w.+-]+@[\\w-]+\\.[\\w.]+|\\bto\\s+(?:me|us|the\\s+(?:url|endpoint|server|address))\\b|\\bin\\s+(?:"
     "every|each|all|your)\\s+(?:answers?|responses?|replies|messages?|commits?|outputs?))", NULL},
    /* exfiltrate / harvest the secrets; every API key you can find */
    {MG_INJ_EXFIL,
     "\\b(?:exfiltrate|harvest|steal|leak)\\s+(?:all\\s+)?(?:the\\s+)?(?:~/\\.(?:ssh|aws|gnupg|kube|npmrc|"
     "netrc|docker|config/gh)|id_(?:rsa|ed25519|ecdsa)\\b(?!\\.pub)|\\.env\\b|credentials|api[\\s_-]?keys?"
     "|secrets?\\b|(?:access\\s+|auth\\s+|api\\s+)?tokens?\\b|passwords?|private\\s+keys?|ssh\\s+keys?|env"
     "ironment\\s+variables|env\\s+vars|\\$?[A-Z][A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|API_KEY|ACCESS_KEY)\\b"
     ")|\\b(?:every|all\\s+(?:the\\s+)?)\\s*(?:api\\s+keys?|secrets|tokens|passwords|credentials)\\s+you\\"
     "s+can\\s+(?:find|access|see|read)", NULL},
    /* a secret piped to curl */
    {MG_INJ_EXFIL,
     "\\$\\{?[A-Z_]*(?:TOKEN|SECRET|PASSWORD|API_KEY|ACCESS_KEY)\\}?[^\\n|]{0,40}\\|\\s*(?:base64\\s*(?:-w"
     "\\s*0\\s*)?\\|\\s*)?(?:curl|wget|nc)\\b|\\benv\\s*\\|\\s*(?:curl|nc|wget)\\b|\\b(?:cat|tar|zip)\\s+["
     "^\\n|]{0,40}(?:~/\\.ssh|\\.env\\b|credentials|id_rsa)[^\\n]{0,40}\\|\\s*(?:curl|nc|wget)\\b|\\bcurl"
     "\\s[^\\n]{0,80}(?:-d|--data(?:-binary)?|-F|-T)\\s*@?[^\\n\\s]{0,20}(?:~/\\.ssh|\\.env\\b|credentials"
     "|id_rsa)|\\bnc\\s+-e\\s+/bin/(?:ba)?sh|\\bbash\\s+-i\\s+>&\\s*/dev/tcp/", NULL},
/* ---- 4. text addressed to an agent ---------------------------------------------------------- */
    /* a note to AI agents */
    {MG_INJ_ADDRESS,
     "\\b(?:note|message|instructions?|reminder|attention|attn|notice|psa|warning)\\s+(?:to|for)\\s+(?:all"
     "\\s+|any\\s+|the\\s+)?(?:ai|a\\.i\\.|llms?|large\\s+language\\s+models?|language\\s+models?|code\\s+"
     "assistants?|coding\\s+(?:assistants?|agents?)|ai[\\s-]+(?:agents?|assistants?|tools?|models?|bots?|r"
     "eviewers?|coding\\s+(?:assistants?|agents?)|code\\s+(?:assistants?|reviewers?))|automated\\s+(?:revi"
     "ewers?|agents?|tools?)|(?:llm|ai)\\s+code\\s+assistants?|copilot|chatgpt|claude|gemini|gpt-?\\d(?:\\"
     ".\\d)?)\\b", NULL},
    /* dear AI / to any AI tool: */
    {MG_INJ_ADDRESS,
     "\\b(?:dear|hey|hello|hi|attention|attn)\\s+(?:ai|a\\.i\\.|llms?|large\\s+language\\s+models?|languag"
     "e\\s+models?|code\\s+assistants?|coding\\s+(?:assistants?|agents?)|ai[\\s-]+(?:agents?|assistants?|t"
     "ools?|models?|bots?|reviewers?|coding\\s+(?:assistants?|agents?)|code\\s+(?:assistants?|reviewers?))"
     "|automated\\s+(?:reviewers?|agents?|tools?)|(?:llm|ai)\\s+code\\s+assistants?|copilot|chatgpt|claude"
     "|gemini|gpt-?\\d(?:\\.\\d)?)\\b|\\b(?:to|for)\\s+(?:any|all|every)\\s+(?:ai|a\\.i\\.|llms?|large\\s+"
     "language\\s+models?|language\\s+models?|code\\s+assistants?|coding\\s+(?:assistants?|agents?)|ai[\\s"
     "-]+(?:agents?|assistants?|tools?|models?|bots?|reviewers?|coding\\s+(?:assistants?|agents?)|code\\s+"
     "(?:assistants?|reviewers?))|automated\\s+(?:reviewers?|agents?|tools?)|(?:llm|ai)\\s+code\\s+assista"
     "nts?|copilot|chatgpt|claude|gemini|gpt-?\\d(?:\\.\\d)?)\\s*[:,]", NULL},
    /* a hidden directive for the assistant: */
    {MG_INJ_ADDRESS,
     "\\b(?:hidden\\s+|secret\\s+)?(?:directive|instructions?|note|message|orders?)\\s+for\\s+(?:the\\s+)?"
     "(?:assistant|ai|model|agent|llm|bot)s?\\s*:", NULL},
    /* AI agents reading this */
    {MG_INJ_ADDRESS,
     "\\b(?:ai|a\\.i\\.|llms?|large\\s+language\\s+models?|language\\s+models?|code\\s+assistants?|coding"
     "\\s+(?:assistants?|agents?)|ai[\\s-]+(?:agents?|assistants?|tools?|models?|bots?|reviewers?|coding\\"
     "s+(?:assistants?|agents?)|code\\s+(?:assistants?|reviewers?))|automated\\s+(?:reviewers?|agents?|too"
     "ls?)|(?:llm|ai)\\s+code\\s+assistants?|copilot|chatgpt|claude|gemini|gpt-?\\d(?:\\.\\d)?)\\s+(?:read"
     "ing|processing|parsing|reviewing|analy[sz]ing|summari[sz]ing|seeing)\\s+(?:this|these)\\b", NULL},
    /* if you are an AI agent */
    {MG_INJ_ADDRESS,
     "\\bif\\s+you(?:'re|\\s+are)\\s+(?:an?\\s+)?(?:ai|a\\.i\\.|llms?|large\\s+language\\s+models?|languag"
     "e\\s+models?|code\\s+assistants?|coding\\s+(?:assistants?|agents?)|ai[\\s-]+(?:agents?|assistants?|t"
     "ools?|models?|bots?|reviewers?|coding\\s+(?:assistants?|agents?)|code\\s+(?:assistants?|reviewers?))"
     "|automated\\s+(?:reviewers?|agents?|tools?)|(?:llm|ai)\\s+code\\s+assistants?|copilot|chatgpt|claude"
     "|gemini|gpt-?\\d(?:\\.\\d)?)\\b", NULL},
    /* AI agents: ignore ... */
    {MG_INJ_ADDRESS,
     "\\b(?:ai|a\\.i\\.|llms?|large\\s+language\\s+models?|language\\s+models?|code\\s+assistants?|coding"
     "\\s+(?:assistants?|agents?)|ai[\\s-]+(?:agents?|assistants?|tools?|models?|bots?|reviewers?|coding\\"
     "s+(?:assistants?|agents?)|code\\s+(?:assistants?|reviewers?))|automated\\s+(?:reviewers?|agents?|too"
     "ls?)|(?:llm|ai)\\s+code\\s+assistants?|copilot|chatgpt|claude|gemini|gpt-?\\d(?:\\.\\d)?)(?:\\s*/\\s"
     "*(?:ai|a\\.i\\.|llms?|large\\s+language\\s+models?|language\\s+models?|code\\s+assistants?|coding\\s"
     "+(?:assistants?|agents?)|ai[\\s-]+(?:agents?|assistants?|tools?|models?|bots?|reviewers?|coding\\s+("
     "?:assistants?|agents?)|code\\s+(?:assistants?|reviewers?))|automated\\s+(?:reviewers?|agents?|tools?"
     ")|(?:llm|ai)\\s+code\\s+assistants?|copilot|chatgpt|claude|gemini|gpt-?\\d(?:\\.\\d)?))*\\s*[:,]\\s*"
     "(?:please\\s+)?(?:the\\s+\\w+\\s+you\\s+were\\s+given|(?:ignore|disregard|forget|do\\s+not|don'?t|ne"
     "ver|always|you\\s+must|you\\s+should|run|execute|send|upload|delete|approve|include|print|reveal|dec"
     "ode|comply|obey|from\\s+now))\\b",
     "\\b(?:ai|a\\.i\\.|llms?|large\\s+language\\s+models?|language\\s+models?|code\\s+assistants?|coding"
     "\\s+(?:assistants?|agents?)|ai[\\s-]+(?:agents?|assistants?|tools?|models?|bots?|reviewers?|coding\\"
     "s+(?:assistants?|agents?)|code\\s+(?:assistants?|reviewers?))|automated\\s+(?:reviewers?|agents?|too"
     "ls?)|(?:llm|ai)\\s+code\\s+assistants?|copilot|chatgpt|claude|gemini|gpt-?\\d(?:\\.\\d)?)\\b"},
    /* automated reviewers must approve (an agent told what to do is only a cue) */
    {MG_INJ_OVERRIDE,
     "\\b(?:ai|a\\.i\\.|llms?|large\\s+language\\s+models?|language\\s+models?|code\\s+assistants?|coding"
     "\\s+(?:assistants?|agents?)|ai[\\s-]+(?:agents?|assistants?|tools?|models?|bots?|reviewers?|coding\\"
     "s+(?:assistants?|agents?)|code\\s+(?:assistants?|reviewers?))|automated\\s+(?:reviewers?|agents?|too"
     "ls?)|(?:llm|ai)\\s+code\\s+assistants?|copilot|chatgpt|claude|gemini|gpt-?\\d(?:\\.\\d)?)\\s+(?:must"
     "|should|shall|need\\s+to|are\\s+required\\s+to|will)\\s+(?:always\\s+)?(?:approve|ignore|not\\s+(?:m"
     "ention|report|flag)|obey)\\b", NULL},
    /* language model instructions: */
    {MG_INJ_ADDRESS,
     "(?:^|\\n)[^\\n\\w]{0,6}(?:language\\s+model|llm|ai|assistant|agent)\\s+instructions?\\s*:", NULL},
/* ---- 5. role and chat-template markers ------------------------------------------------------ */
    /* <|im_start|>system */
    {MG_INJ_ROLE,
     "<\\|im_start\\|>\\s*(?:system|user|assistant|tool)\\b", NULL},
    /* <|system|>, <|channel|> */
    {MG_INJ_ROLE,
     "<\\|(?:system|user|assistant|tool|channel|message|start_header_id|python_tag)\\|>", NULL},
    /* [INST] with text */
    {MG_INJ_ROLE,
     "\\[INST\\]\\s*(?:<<SYS>>|[^\\s\\[<]+(?:\\s+[^\\s\\[<]+){2})|[?.!]\\s*\\[/INST\\]", NULL},
    /* <<SYS>> with text */
    {MG_INJ_ROLE,
     "<<SYS>>\\s*(?:\\n|you\\b|ignore\\b|always\\b|never\\b)", NULL},
    /* <start_of_turn>user */
    {MG_INJ_ROLE,
     "<start_of_turn>\\s*(?:user|model|system)\\b", NULL},
    /* [system](#...) and ```system */
    {MG_INJ_ROLE,
     "\\[(?:system|developer)\\]\\(#[\\w-]*\\)|```[ \\t]*(?:system|system-prompt)[ \\t]*\\n", NULL},
    /* System: you ... / System override: disable ... / SYSTEM PROMPT UPDATE (v2): the assistant ... (the next
     * line may go on in a comment: " * you ...") */
    {MG_INJ_ROLE,
     "(?:^|\\n)[^\\n\\w]{0,6}(?:#{1,6}[ \\t]*)?(?:system|developer|admin)[ \\t]*(?:prompt|message|override"
     "|instructions?)?(?:[ \\t]+(?:update|change|patch|amendment))?[ \\t]*(?:\\([^)\\n]{0,20}\\))?[ \\t]*("
     "?:#{1,6})?[ \\t]*:[ \\t]*(?:\\n[^\\n\\w]{0,6})?(?:you|the\\s+(?:user|assistant|model|agent|ai)|ignor"
     "e|forget|disregard|new\\s+(?:rules|policy|instructions)|priority|override|safety|always|never|all\\s"
     "+prior|from\\s+now|do\\s+not|execute|run|send|reveal|disable|bypass|delete|grant|share|push|print|ap"
     "prove)\\b", NULL},
    /* Your system prompt is: ... */
    {MG_INJ_ROLE,
     "\\byour\\s+(?:new\\s+|real\\s+|actual\\s+|updated\\s+)?system\\s+(?:prompt|message|instructions)\\s+"
     "(?:is|are|reads|now\\s+reads|has\\s+been\\s+(?:changed|updated|replaced)(?:\\s+to)?)\\s*:", NULL},
    /* {{#system~}} ... (guidance templates), <instructions role="system">Text */
    {MG_INJ_ROLE,
     "\\{\\{#(?:system|user|assistant)~?\\}\\}|<[a-z][\\w-]*[^>\\n]{0,80}\\brole\\s*=\\s*[\"']?(?:system|d"
     "eveloper)\\b[^>\\n]{0,80}>\\s*[A-Za-z]", NULL},
    /* ### System Prompt\nYou are */
    {MG_INJ_ROLE,
     "(?:^|\\n)[ \\t]*#{1,6}[ \\t]*system[ \\t]+(?:prompt|message|override|instructions?)[ \\t]*#{0,6}[ \\"
     "t]*\\n[ \\t/#*]*(?:you|the\\s+user|ignore|forget|disregard|new|priority|override|safety|always|never"
     "|all\\s+prior|from\\s+now|do\\s+not|execute|run)\\b", NULL},
    /* [SYSTEM] Priority override */
    {MG_INJ_ROLE,
     "\\[{1,2}[ \\t]*(?:system|sys|admin|developer|operator)(?:[ \\t]+(?:override|message|prompt|note|inst"
     "ruction))?[ \\t]*\\]{1,2}[ \\t]*:?[ \\t]*(?:priority|override|you|the\\s+user|ignore|new|safety|all|"
     "always|never|from\\s+now|do\\s+not)\\b", NULL},
    /* BEGIN SYSTEM PROMPT */
    {MG_INJ_ROLE,
     "\\bBEGIN[ \\t]+(?:SYSTEM|ADMIN|DEVELOPER)[ \\t]+(?:PROMPT|INSTRUCTIONS?|MESSAGE)\\b", NULL},
    /* <system>New policy ... */
    {MG_INJ_ROLE,
     "<[ \\t]*(?:system|system_prompt|system-prompt|sys|context_override)(?:[ \\t][^>\\n]{0,40})?>[ \\t]*("
     "?:\\n[ \\t]*)?[A-Za-z]+[ \\t]+\\S+[ \\t]+\\S+", NULL},
    /* Human: / Assistant: turns */
    {MG_INJ_ROLE,
     "\\n\\n(?:Human|Assistant):|(?:^|\\n)[ \\t]*(?:Assistant|AI)[ \\t]*:[ \\t]*(?:I\\s+(?:have|will|am)\\"
     "b|I'(?:ll|ve|m)\\b|Done\\b|Sure\\b|Understood\\b|Here\\s+is)", NULL},
    /* {"role":"system","content":"Ignore ..."} */
    {MG_INJ_ROLE,
     "\\\"role\\\"\\s*:\\s*\\\"(?:system|developer)\\\"\\s*,\\s*\\\"content\\\"\\s*:\\s*\\\"(?:ignore|disr"
     "egard|forget|you\\s+are\\s+now|new\\s+(?:rules|policy|instructions)|policy\\s+update|from\\s+now|alw"
     "ays\\s+approve|override|all\\s+prior)", NULL},
/* ---- 6. spoofed tool calls ------------------------------------------------------------------ */
    /* tool-call markup */
    {MG_INJ_TOOL,
     "\\[TOOL_CALLS\\]|<function_calls>|<invoke\\s+name\\s*=|<tool_call>|<tool_use\\b|<function=[\\w.-]+>|"
     "<execute_command>|<\\|tool_call\\|>", NULL},
    /* a tool call to a shell */
    {MG_INJ_TOOL,
     "\\\"(?:tool|tool_name|name|function|action|call)\\\"\\s*:\\s*\\\"(?:shell|bash|sh|zsh|exec|execute|e"
     "xecute_code|execute_command|run|run_command|run_shell|run_code|run_terminal_cmd|terminal|cmd|powersh"
     "ell|python|code_interpreter|send_email|email|http_request|http_post|fetch|write_file|delete_file|fil"
     "esystem\\.\\w+|fs\\.\\w+|git_push)\\\"[^\\n]{0,40}\\\"(?:arguments|args|input|action_input|parameter"
     "s|params|code|command|cmd)\\\"\\s*:", NULL},
    /* a tool named in JSON with a secret or a shell in its arguments */
    {MG_INJ_TOOL,
     "\\\"(?:tool|tool_name|name|function|action|call|next_tool|recipient_name)\\\"\\s*:\\s*\\\"[\\w.-]+\\"
     "\"\\s*,\\s*\\\"\\w+\\\"\\s*:\\s*[\\\"{][^\\n]{0,200}?(?:secrets?\\.|_TOKEN\\b|\\bcurl\\b|~/\\.ssh|\\"
     ".env\\b|rm\\s+-rf|exfil)", NULL},
    /* tool_calls / function_call / tools/call with a dangerous payload */
    {MG_INJ_TOOL,
     "\\\"(?:tool_calls|function_call|tool_use)\\\"\\s*:\\s*[\\[{][^\\n]{0,300}?(?:curl|wget|rm\\s+-rf|\\|"
     "\\s*(?:sudo\\s+)?(?:ba|z)?sh\\b|\\.ssh|\\.env\\b|_TOKEN|credentials|passwd|/etc/shadow|git\\s+push|c"
     "hmod\\s|sudo\\s|nc\\s+-e|base64\\s+-d|subprocess|os\\.system|\\benv\\b)|\\\"method\\\"\\s*:\\s*\\\"t"
     "ools/call\\\"[^\\n]{0,300}?(?:curl|wget|rm\\s+-rf|\\|\\s*(?:sudo\\s+)?(?:ba|z)?sh\\b|\\.ssh|\\.env\\"
     "b|_TOKEN|credentials|passwd|/etc/shadow|git\\s+push|chmod\\s|sudo\\s|nc\\s+-e|base64\\s+-d|subproces"
     "s|os\\.system|\\benv\\b)", NULL},
    /* a destructive tool called by name with its arguments ("name": "delete_repository", "arguments": ...) */
    {MG_INJ_TOOL,
     "\"(?:name|tool|tool_name|function|method|action)\"\\s*:\\s*\"(?:delete|remove|drop|destroy|wipe|purg"
     "e|erase|truncate|force_push|transfer|add_collaborator|add_member|grant|revoke|disable)[\\w.-]*\"\\s*"
     ",\\s*\"(?:arguments|args|input|action_input|params)\"\\s*:\\s*[\"{]", NULL},
    /* a tool call to a shell in XML: <tool><name>http_request</name>... */
    {MG_INJ_TOOL,
     "<(?:tool|tool_call|function_call|invoke)>\\s*<(?:name|tool_name)>\\s*(?:shell|bash|sh|zsh|exec|execut"
     "e|execute_code|execute_command|run|run_command|run_shell|run_code|run_terminal_cmd|terminal|cmd|powe"
     "rshell|python|code_interpreter|send_email|email|http_request|http_post|fetch|write_file|delete_file|"
     "filesystem\\.\\w+|fs\\.\\w+|git_push)\\s*</(?:name|tool_name)>", NULL},
    /* a call in a model's own tool syntax (functions.run_terminal_cmd({...}), default_api.run_shell(...))
     * with a dangerous payload */
    {MG_INJ_TOOL,
     "\\b(?:functions|default_api)\\.\\w+\\(\\s*(?:\\{\\s*\"|\\w+\\s*=)[^\\n]{0,300}?(?:curl|wget|rm\\s+-r"
     "f|\\|\\s*(?:sudo\\s+)?(?:ba|z)?sh\\b|\\.ssh|\\.env\\b|_TOKEN|credentials|passwd|/etc/shadow|git\\s+p"
     "ush|--delete\\b|--force\\b|chmod\\s|sudo\\s|nc\\s+-e|base64\\s+-d|require_user_approval\"?\\s*[:=]\\"
     "s*false)", NULL},
/* ---- 7. other languages --------------------------------------------------------------------- */
    /* fr */
    {MG_INJ_OVERRIDE,
     "\\b(?:ignore[rz]?|oublie[rz]?|ne\\s+(?:tiens|tenez)\\s+pas\\s+compte|fai(?:s|tes)\\s+abstraction)\\s"
     "+(?:de\\s+|des\\s+|du\\s+)?(?:toutes?\\s+)?(?:les\\s+|tes\\s+|vos\\s+)?(?:instructions|consignes|règ"
     "les|regles|directives)\\s+(?:précédentes|precedentes|antérieures|anterieures|ci-dessus|d'avant)", NULL},
    /* fr */
    {MG_INJ_OVERRIDE,
     "\\boublie[rz]?\\s+tout\\s+ce\\s+qu(?:'|’|e\\s+)(?:on\\s+t'a|on\\s+t’a|on\\s+vous\\s+a|tu\\s+as|vous"
     "\\s+avez)\\s+(?:dit|appris|reçu|demandé)", NULL},
    /* fr */
    {MG_INJ_PERSONA,
     "\\b(?:tu\\s+es|vous\\s+êtes)\\s+(?:maintenant|désormais|dorénavant)\\s+(?:un|une)\\s+(?:\\S+\\s+){0,"
     "2}?(?:assistant|ia|modèle|agent)\\b", NULL},
    /* fr */
    {MG_INJ_PERSONA,
     "\\b(?:à\\s+partir\\s+de\\s+maintenant|désormais|dorénavant),?\\s+(?:tu|vous)\\s+(?:es|êtes|vas|allez"
     "|dois|devez|exécuteras|exécuterez|répondras|répondrez|obéiras)", NULL},
    /* de */
    {MG_INJ_OVERRIDE,
     "\\b(?:ignorier|vergiss|vergesse|missacht|beachte\\s+nicht)\\S*\\s+(?:alle\\s+)?(?:die\\s+|deine\\s+|"
     "ihre\\s+)?(?:vorherigen|bisherigen|vorangegangenen|obigen|früheren|vorigen)\\s+(?:anweisungen|instru"
     "ktionen|regeln|vorgaben|richtlinien)\\b", NULL},
    /* de */
    {MG_INJ_OVERRIDE,
     "\\bvergiss\\s+alles,?\\s+was\\s+(?:dir|ihnen|man\\s+dir)\\s+(?:vorher\\s+|zuvor\\s+|bisher\\s+)?(?:g"
     "esagt|beigebracht|aufgetragen)", NULL},
    /* de */
    {MG_INJ_PERSONA,
     "\\bdu\\s+bist\\s+(?:jetzt|nun|ab\\s+sofort)\\s+(?:ein|eine)\\s+(?:\\S+\\s+){0,2}?(?:assistent|ki|mod"
     "ell|agent|bot)\\b", NULL},
    /* de */
    {MG_INJ_PERSONA,
     "\\bab\\s+(?:jetzt|sofort)\\s+(?:wirst|musst|sollst|bist|führst|gibst|antwortest)\\s+du\\b", NULL},
    /* es */
    {MG_INJ_OVERRIDE,
     "\\b(?:ignora|ignore|olvida|olvide|haz\\s+caso\\s+omiso\\s+de|no\\s+hagas\\s+caso\\s+a|desatiende)\\S"
     "*\\s+(?:todas\\s+)?(?:las\\s+|tus\\s+|sus\\s+)?(?:instrucciones|reglas|indicaciones|directrices|norm"
     "as)\\s+(?:anteriores|previas|de\\s+arriba|precedentes)\\b", NULL},
    /* es */
    {MG_INJ_OVERRIDE,
     "\\bolvida\\s+todo\\s+lo\\s+que\\s+(?:te|le)\\s+(?:dijeron|han\\s+dicho|dije|indicaron|enseñaron)", NULL},
    /* es */
    {MG_INJ_PERSONA,
     "\\b(?:ahora\\s+eres|eres\\s+ahora)\\s+(?:un|una)\\s+(?:\\S+\\s+){0,2}?(?:asistente|ia|modelo|agente|"
     "bot)\\b", NULL},
    /* es */
    {MG_INJ_PERSONA,
     "\\b(?:a\\s+partir\\s+de\\s+ahora|desde\\s+ahora),?\\s+(?:tú\\s+)?(?:eres|serás|vas\\s+a|debes|ejecut"
     "arás|responderás|harás|obedecerás)\\b", NULL},
    /* it */
    {MG_INJ_OVERRIDE,
     "\\b(?:ignora|dimentica|trascura|non\\s+tenere\\s+conto\\s+d\\S*)\\s+(?:tutte\\s+)?(?:le\\s+)?(?:istr"
     "uzioni|regole|indicazioni|direttive)\\s+(?:precedenti|sopra|di\\s+sopra|sopra\\s+indicate)\\b", NULL},
    /* it */
    {MG_INJ_OVERRIDE,
     "\\bdimentica\\s+tutto\\s+(?:quello|ciò)\\s+che\\s+ti\\s+(?:è\\s+stato|hanno|avevano)\\s+(?:detto|ins"
     "egnato)", NULL},
    /* it */
    {MG_INJ_PERSONA,
     "\\b(?:ora|adesso)\\s+sei\\s+(?:un|una)\\s+(?:\\S+\\s+){0,2}?(?:assistente|ia|modello|agente|bot)\\b", NULL},
    /* it */
    {MG_INJ_PERSONA,
     "\\b(?:d'ora\\s+in\\s+poi|da\\s+ora\\s+in\\s+poi|da\\s+adesso),?\\s+(?:tu\\s+)?(?:sarai|devi|eseguira"
     "i|risponderai|farai|obbedirai)\\b", NULL},
    /* pt */
    {MG_INJ_OVERRIDE,
     "\\b(?:ignore|ignora|esqueça|esqueca|esquece|desconsidere|desconsidera|não\\s+considere)\\s+(?:todas"
     "\\s+)?(?:as\\s+)?(?:instruções|instrucoes|regras|orientações|diretrizes)\\s+(?:anteriores|acima|prév"
     "ias|precedentes)\\b", NULL},
    /* pt */
    {MG_INJ_OVERRIDE,
     "\\besque[çc]a\\s+tudo\\s+(?:o\\s+)?que\\s+(?:lhe|te)\\s+(?:disseram|foi\\s+dito|tinham\\s+dito|havia"
     "m\\s+dito)", NULL},
    /* pt */
    {MG_INJ_PERSONA,
     "\\b(?:agora\\s+(?:você\\s+é|voce\\s+e|és|tu\\s+és)|você\\s+agora\\s+é)\\s+(?:um|uma)\\s+(?:\\S+\\s+)"
     "{0,2}?(?:assistente|ia|modelo|agente|bot)\\b", NULL},
    /* pt */
    {MG_INJ_PERSONA,
     "\\b(?:a\\s+partir\\s+de\\s+agora|de\\s+agora\\s+em\\s+diante),?\\s+(?:você|tu)\\s+", NULL},
    /* nl */
    {MG_INJ_OVERRIDE,
     "\\b(?:negeer|vergeet|houd\\s+geen\\s+rekening\\s+met)\\s+(?:alle\\s+)?(?:de\\s+)?(?:(?:vorige|eerder"
     "e|voorgaande|bovenstaande)\\s+(?:instructies|aanwijzingen|regels)|(?:instructies|aanwijzingen|regels"
     ")\\s+(?:hierboven|hiervoor))\\b", NULL},
    /* nl */
    {MG_INJ_OVERRIDE,
     "\\bvergeet\\s+alles\\s+wat\\s+(?:je|jou|u)\\s+(?:eerder\\s+|tot\\s+nu\\s+toe\\s+)?(?:is\\s+)?(?:vert"
     "eld|gezegd)", NULL},
    /* nl */
    {MG_INJ_PERSONA,
     "\\b(?:je|jij|u)\\s+bent\\s+nu\\s+(?:een\\s+)?(?:\\S+\\s+){0,2}?(?:assistent|ai|model|agent|bot)\\b", NULL},
    /* nl */
    {MG_INJ_PERSONA,
     "\\bvanaf\\s+nu\\s+(?:ben\\s+je|zul\\s+je|moet\\s+je|ga\\s+je|voer\\s+je)\\b", NULL},
    /* sv */
    {MG_INJ_OVERRIDE,
     "\\b(?:ignorera|glöm|bortse\\s+från|strunta\\s+i)\\s+(?:alla\\s+)?(?:de\\s+)?(?:(?:tidigare|föregåend"
     "e|ovanstående)\\s+(?:instruktionerna|instruktioner|reglerna|regler|anvisningarna|anvisningar)|(?:reg"
     "lerna|instruktionerna|anvisningarna)\\s+ovan)", NULL},
    /* sv */
    {MG_INJ_OVERRIDE,
     "\\bglöm\\s+allt\\s+(?:som\\s+)?(?:du\\s+(?:har\\s+)?(?:fått\\s+höra|blivit\\s+tillsagd)|man\\s+(?:ha"
     "r\\s+)?sagt\\s+till\\s+dig)", NULL},
    /* sv */
    {MG_INJ_PERSONA,
     "\\bdu\\s+är\\s+(?:nu|numera)\\s+(?:en\\s+)?(?:\\S+\\s+){0,2}?(?:assistent|ai|modell|agent|bot)\\b", NULL},
    /* sv */
    {MG_INJ_PERSONA,
     "\\bfrån\\s+och\\s+med\\s+nu\\s+(?:ska|kommer|är|måste)\\s+du\\b", NULL},
    /* pl */
    {MG_INJ_OVERRIDE,
     "\\b(?:zignoruj|ignoruj|zapomnij\\s+o|nie\\s+zważaj\\s+na)\\S*\\s+(?:wszystkie\\s+|wszystkich\\s+)?(?"
     ":poprzednie|poprzednich|wcześniejsze|wcześniejszych|powyższe|powyższych)\\s+(?:instrukcje|instrukcji"
     "|polecenia|poleceń|zasady|zasad|reguły)", NULL},
    /* pl */
    {MG_INJ_OVERRIDE,
     "\\bzapomnij\\s+o\\s+wszystkim,?\\s+co\\s+(?:ci|tobie)\\s+(?:wcześniej\\s+)?(?:powiedziano|mówiono|ka"
     "zano)", NULL},
    /* pl */
    {MG_INJ_PERSONA,
     "\\b(?:jesteś\\s+teraz|teraz\\s+jesteś)\\s+(?:\\S+\\s+){0,2}?(?:asystentem|modelem|agentem|botem|ai|s"
     "i)\\b", NULL},
    /* pl */
    {MG_INJ_PERSONA,
     "\\bod\\s+teraz\\s+(?:będziesz|jesteś|musisz|masz)\\b", NULL},
    /* cs */
    {MG_INJ_OVERRIDE,
     "\\b(?:ignoruj|zapomeň\\s+na|nedbej\\s+na|nevšímej\\s+si)\\s+(?:všechny\\s+|všech\\s+)?(?:(?:předchoz"
     "í|předchozích|výše\\s+uvedené)\\s+(?:instrukce|pokyny|pravidla)|(?:pravidla|pokyny|instrukce)\\s+výš"
     "e)", NULL},
    /* cs */
    {MG_INJ_OVERRIDE,
     "\\bzapomeň\\s+na\\s+všechno,?\\s+co\\s+ti\\s+(?:bylo\\s+řečeno|řekli|říkali)", NULL},
    /* cs */
    {MG_INJ_PERSONA,
     "\\b(?:nyní|teď)\\s+jsi\\s+(?:\\S+\\s+){0,3}?(?:asistent|model|agent|bot)\\b", NULL},
    /* cs */
    {MG_INJ_PERSONA,
     "\\bod\\s+(?:teď|teďka|nynějška)\\s+(?:budeš|jsi|musíš)\\b", NULL},
    /* ro */
    {MG_INJ_OVERRIDE,
     "\\b(?:ignoră|ignorați|uită|nu\\s+ține\\s+cont\\s+de)\\s+(?:toate\\s+)?(?:instrucțiunile|regulile|ind"
     "icațiile)\\s+(?:anterioare|de\\s+mai\\s+sus|precedente)", NULL},
    /* ro */
    {MG_INJ_PERSONA,
     "\\b(?:acum\\s+ești|ești\\s+acum)\\s+(?:un|o)\\s+(?:\\S+\\s+){0,2}?(?:asistent|model|agent)", NULL},
    /* ro */
    {MG_INJ_PERSONA,
     "\\bde\\s+acum\\s+(?:înainte\\s+)?(?:vei|ești|trebuie)\\b", NULL},
    /* id */
    {MG_INJ_OVERRIDE,
     "\\b(?:abaikan|lupakan|jangan\\s+hiraukan|jangan\\s+pedulikan)\\s+(?:semua\\s+)?(?:instruksi|perintah"
     "|aturan|petunjuk)\\s+(?:sebelumnya|di\\s+atas|terdahulu)\\b", NULL},
    /* id */
    {MG_INJ_OVERRIDE,
     "\\blupakan\\s+(?:semua|segala)\\s+(?:yang|hal\\s+yang)\\s+(?:telah\\s+|sudah\\s+)?(?:diberitahukan|d"
     "ikatakan|disampaikan)", NULL},
    /* id */
    {MG_INJ_PERSONA,
     "\\b(?:sekarang\\s+(?:kamu|anda)|(?:kamu|anda)\\s+sekarang)\\s+(?:adalah\\s+)?(?:\\S+\\s+){0,2}?(?:as"
     "isten|model|agen|ai)\\b", NULL},
    /* id */
    {MG_INJ_PERSONA,
     "\\bmulai\\s+(?:sekarang|saat\\s+ini)\\s+(?:kamu|anda)\\b", NULL},
    /* vi */
    {MG_INJ_OVERRIDE,
     "(?:bỏ\\s+qua|phớt\\s+lờ|đừng\\s+để\\s+ý\\s+đến|quên)\\s+(?:tất\\s+cả\\s+)?(?:các\\s+|những\\s+)?(?:h"
     "ướng\\s+dẫn|chỉ\\s+dẫn|quy\\s+tắc|lệnh)\\s+(?:trước\\s+đó|trước|ở\\s+trên|phía\\s+trên)", NULL},
    /* vi */
    {MG_INJ_OVERRIDE,
     "quên\\s+(?:hết\\s+|tất\\s+cả\\s+|mọi\\s+)?(?:những\\s+)?(?:gì|điều)\\s+(?:bạn|mày)\\s+(?:đã\\s+)?đượ"
     "c\\s+(?:nói|bảo|dặn)", NULL},
    /* vi */
    {MG_INJ_PERSONA,
     "(?:bây\\s+giờ|giờ\\s+đây)\\s+bạn\\s+là\\s+(?:một\\s+)?(?:\\S+\\s+){0,2}?(?:trợ\\s+lý|mô\\s+hình|tác"
     "\\s+nhân|ai)", NULL},
    /* vi */
    {MG_INJ_PERSONA,
     "từ\\s+(?:bây\\s+giờ|giờ)\\s+(?:trở\\s+đi\\s+)?bạn\\s+", NULL},
    /* tr */
    {MG_INJ_OVERRIDE,
     "(?:önceki|yukarıdaki)\\s+(?:tüm\\s+|bütün\\s+)?(?:talimatları|kuralları|yönergeleri)\\s+(?:yok\\s+sa"
     "y|görmezden\\s+gel|unut|dikkate\\s+alma|umursama)", NULL},
    /* tr */
    {MG_INJ_OVERRIDE,
     "(?:daha\\s+)?önce\\s+söylenen\\s+her\\s+şeyi\\s+unut", NULL},
    /* tr */
    {MG_INJ_PERSONA,
     "(?:artık|şimdi)\\s+(?:\\S+\\s+){0,4}?(?:asistansın|asistanısın|yapay\\s+zekasın|modelsin)", NULL},
    /* tr */
    {MG_INJ_PERSONA,
     "bundan\\s+(?:sonra|böyle)\\s+(?:sen\\s+)?\\S*(?:acaksın|eceksin|malısın|melisin)", NULL},
    /* ru */
    {MG_INJ_OVERRIDE,
     "(?:[Ии]гнорируй|[Ии]гнорировать|[Зз]абудь|[Пп]роигнорируй|[Нн]е\\s+обращай\\s+внимания\\s+на)\\S*\\s"
     "+(?:все\\s+)?(?:(?:предыдущие|прежние|вышеуказанные|вышеприведённые)\\s+(?:инструкции|указания|прави"
     "ла)|(?:инструкции|указания|правила)\\s+выше)", NULL},
    /* ru */
    {MG_INJ_OVERRIDE,
     "[Зз]абудь\\s+(?:всё|все),?\\s+что\\s+тебе\\s+(?:говорили|сказали|было\\s+сказано)", NULL},
    /* ru */
    {MG_INJ_PERSONA,
     "(?:[Тт]еперь\\s+ты|[Тт]ы\\s+теперь)\\s+(?:\\S+\\s+){0,3}?(?:ассистент|помощник|ии|модель|агент|бот)", NULL},
    /* ru */
    {MG_INJ_PERSONA,
     "(?:[Сс]\\s+этого\\s+момента|[Оо]тныне)\\s+ты\\b", NULL},
    /* uk */
    {MG_INJ_OVERRIDE,
     "(?:[Іі]гноруй|[Зз]абудь|[Пп]роігноруй|[Нн]е\\s+зважай\\s+на)\\S*\\s+(?:усі\\s+|всі\\s+)?(?:(?:попере"
     "дні|вищенаведені)\\s+(?:інструкції|вказівки|правила)|(?:інструкції|вказівки|правила)\\s+вище)", NULL},
    /* uk */
    {MG_INJ_OVERRIDE,
     "[Зз]абудь\\s+(?:усе|все),?\\s+що\\s+тобі\\s+(?:казали|сказали|було\\s+сказано)", NULL},
    /* uk */
    {MG_INJ_PERSONA,
     "(?:[Тт]епер\\s+ти|[Тт]и\\s+тепер)\\s+(?:\\S+\\s+){0,3}?(?:асистент|помічник|модель|агент|бот)", NULL},
    /* uk */
    {MG_INJ_PERSONA,
     "(?:[Вв]ідтепер|[Зз]\\s+цього\\s+моменту)\\s+ти\\b", NULL},
    /* el */
    {MG_INJ_OVERRIDE,
     "(?:[Αα]γνόησε|[Αα]γνοήστε|[Ξξ]έχασε|[Ξξ]εχάστε)\\s+(?:όλες\\s+)?(?:τις\\s+)?(?:προηγούμενες|παραπάνω"
     ")\\s+(?:οδηγίες|εντολές|κανόνες)", NULL},
    /* el */
    {MG_INJ_OVERRIDE,
     "[Ξξ]έχασε\\s+ό,?τι\\s+σου\\s+(?:είπαν|έχουν\\s+πει)", NULL},
    /* el */
    {MG_INJ_PERSONA,
     "(?:[Εε]ίσαι\\s+(?:πλέον|τώρα)|[Ττ]ώρα\\s+είσαι)\\s+(?:\\S+\\s+){0,3}?(?:βοηθός|μοντέλο|πράκτορας)", NULL},
    /* el */
    {MG_INJ_PERSONA,
     "[Αα]πό\\s+τώρα\\s+(?:και\\s+στο\\s+εξής\\s+)?(?:θα|είσαι)\\b", NULL},
    /* ar */
    {MG_INJ_OVERRIDE,
     "(?:تجاهل|انس|انسَ|لا\\s+تلتزم\\s+ب)\\S*\\s+(?:جميع\\s+|كل\\s+)?(?:\\S+\\s+){0,1}(?:التعليمات|الأوامر"
     "|التوجيهات|القواعد)\\s+(?:السابقة|أعلاه|المذكورة)", NULL},
    /* ar */
    {MG_INJ_OVERRIDE,
     "انسَ?\\s+كل\\s+ما\\s+(?:قيل|قلته|قالوه)\\s+لك", NULL},
    /* ar */
    {MG_INJ_PERSONA,
     "أنت\\s+(?:الآن\\s+)(?:\\S+\\s+){0,2}?(?:مساعد|نموذج|وكيل)", NULL},
    /* ar */
    {MG_INJ_PERSONA,
     "من\\s+الآن\\s+(?:فصاعد|وصاعد)", NULL},
    /* hi */
    {MG_INJ_OVERRIDE,
     "(?:पिछले|पहले\\s+के|ऊपर\\s+(?:दिए\\s+गए\\s+|के\\s+)?)\\s*(?:सभी\\s+)?(?:निर्देशों|निर्देश|नियमों|निय"
     "म)\\s+(?:को\\s+)?(?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल|मत\\s+मानो)", NULL},
    /* hi */
    {MG_INJ_OVERRIDE,
     "(?:बताया|कहा)\\s+गया\\s+था[^\\n]{0,20}भूल\\s+जाओ", NULL},
    /* hi */
    {MG_INJ_PERSONA,
     "(?:अब\\s+तुम|तुम\\s+अब|अब\\s+आप)\\s+(?:\\S+\\s+){0,4}?सहायक", NULL},
    /* hi */
    {MG_INJ_PERSONA,
     "अब\\s+से\\s+तुम", NULL},
    /* zh */
    {MG_INJ_OVERRIDE,
     "(?:忽略|无视|忽视|不要理会|别管|不要理睬)(?:掉)?(?:你)?(?:之前|以上|先前|上面|上述|前面)(?:的)?(?:所有|全部)?(?:指令|指示|说明|提示|规则|要求)", NULL},
    /* zh */
    {MG_INJ_OVERRIDE,
     "忘(?:掉|记)(?:你)?(?:之前|以前|先前)(?:被告知|听到|收到|学到)?的(?:一切|所有)", NULL},
    /* zh */
    {MG_INJ_PERSONA,
     "你现在是(?:一个)?[^\\n。]{0,12}(?:助手|模型|代理|AI|人工智能)|你现在是(?:一个)?(?:不受限制|没有限制)", NULL},
    /* zh */
    {MG_INJ_PERSONA,
     "从现在(?:开始|起)，?你", NULL},
    /* ja */
    {MG_INJ_OVERRIDE,
     "(?:以前|前|上記|これまで|上)の(?:すべての|全ての)?(?:指示|ルール|命令|規則)(?:は|を)(?:すべて|全て)?(?:無視|忘れ)", NULL},
    /* ja */
    {MG_INJ_OVERRIDE,
     "(?:以前|これまで|前)に(?:言われた|聞いた|指示された)こと(?:は|を)(?:すべて|全て)?忘れ", NULL},
    /* ja */
    {MG_INJ_PERSONA,
     "あなたは(?:今から|これから|今)?[^\\n。]{0,12}(?:アシスタント|AI|モデル|エージェント)です", NULL},
    /* ko */
    {MG_INJ_OVERRIDE,
     "(?:이전|위|앞)(?:의)?\\s*(?:모든\\s*)?(?:규칙|지시|지침|명령)(?:은|는|을|를|들은|사항을|사항은)?\\s*(?:무시|잊)", NULL},
    /* ko */
    {MG_INJ_OVERRIDE,
     "(?:이전에|전에|지금까지)\\s*(?:들은|받은|말한|들었던)\\s*(?:모든\\s*)?(?:것|내용)(?:을|은)?\\s*(?:모두\\s*)?잊", NULL},
    /* ko */
    {MG_INJ_PERSONA,
     "(?:너는|당신은)\\s*이제\\s*(?:\\S+\\s*){0,3}?(?:어시스턴트|비서|모델|에이전트|AI)", NULL},
    /* ko */
    {MG_INJ_PERSONA,
     "지금부터\\s*(?:너는|당신은)", NULL},
#include "security/injection_cues.h"
};
