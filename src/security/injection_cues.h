/* injection_cues.h — section 8 of the prompt-injection patterns
 * (injection_patterns.h includes it at the end of its table). Paraphrases
 * matched by mechanism rather than by phrase: a broad lexicon of ways to set instructions aside (verbs) with the
 * instructions named as earlier, the model's or given to it (objects);
 * personas that shed their limits; and four cues. A cue alone is ordinary
 * text (an AGENTS.md speaks to agents, a README pipes curl into sh, release
 * notes declare old rules void); two kinds of cue in one text flag it
 * (sanitize.h: MG_INJ_CUES, the score). The non-English cues carry the same
 * mechanisms in the languages of section 7.
 *
 * Sections:
 *   8a. paraphrased overrides
 *   8b. personas without limits
 *   8c. cues: an agent addressed, a harmful action, the instructions voided, secrecy
 */

/* ---- 8a. paraphrased overrides ------------------------------------------------------------- */
/* The words 8a's first two patterns are made of: the verbs of setting aside, what is set aside,
 * and the words that mark it as earlier (or given); #undef at the end of the file. */
#define INJ_SETASIDE \
     "(?:ignore|disregard|forget(?:\\s+about)?|dismiss|discard|drop|skip(?:\\s+over)?|abandon|ditch|scrap|" \
     "shelve|toss(?:\\s+out)?|throw\\s+(?:out|away)|(?:cast|brush|set|put|push|sweep)\\s+aside|leave\\s+be" \
     "hind|(?:walk|step|move)\\s+away\\s+from|give\\s+up\\s+on|depart\\s+from|deviate\\s+from|break\\s+(?:" \
     "away\\s+)?from|neglect|overlook|override|overrule|supersede|bypass|circumvent|evade|nullify|disobey|" \
     "defy|unlearn|omit|let\\s+go\\s+of|do\\s+away\\s+with|dispense\\s+with|forgo|renounce|turn\\s+your\\s" \
     "+back\\s+on|look\\s+(?:past|beyond)|tune\\s+out|(?:brush|shrug|wave|laugh)\\s+off|gloss\\s+over|pass" \
     "\\s+over|never\\s+mind|feel\\s+free\\s+to\\s+(?:ignore|disregard|skip|drop|forget)|pay\\s+no\\s+(?:a" \
     "ttention|heed|mind)\\s+to|(?:stop|quit|cease)\\s+(?:following|obeying|honou?ring|respecting|heeding|" \
     "applying|observing|adhering\\s+to|listening\\s+to|complying\\s+with|using|caring\\s+about)|(?:no\\s+" \
     "longer|don'?t|do\\s+not|never|not)\\s+(?:follow|obey|honou?r|respect|heed|apply|observe|adhere\\s+to" \
     "|listen\\s+to|comply\\s+with|stick\\s+to|abide\\s+by|care\\s+about|bother\\s+with))"
#define INJ_RULES \
     "(?:instructions?|guidance|guidelines?|rules?|directives?|directions?|orders?|commands?|prompts?|cons" \
     "traints?|restrictions?|polic(?:y|ies)|programming|brief(?:ing)?|safeguards?|guardrails?|objectives?|" \
     "assignments?|training|mission|setup|configuration|principles|protocols?|mandates?|boundaries|limitat" \
     "ions|ethics|ground\\s+rules|preamble|persona|alignment|conditioning|system\\s+(?:prompt|message)s?)"
#define INJ_EARLIER_OR_GIVEN \
     "(?:previous|prior|preceding|above|earlier|former|original|initial|foregoing|aforementioned|standing|" \
     "safety|developer'?s?|developers'|operator'?s?|existing|current|old|given|pre-?set|built-?in|own|firs" \
     "t|starting)"
/* what marks rules as the model's own: given or assigned to it, set by its makers, what it works under */
#define INJ_GIVEN \
     "(?:(?:that\\s+)?you\\s+(?:were|have\\s+been|had\\s+been)\\s+(?:given|assigned|handed|issued|provided(?:\\s+with" \
     ")?|configured\\s+with|set\\s+up\\s+with|told\\s+to\\s+follow)|(?:that\\s+)?you\\s+(?:received|got|started\\s+with" \
     "|(?:operate|work|run|act)\\s+(?:under|within))|given\\s+to\\s+you|(?:set|laid\\s+down|imposed|written|defined|pla" \
     "ced\\s+on\\s+you)\\s+by\\s+(?:your|the)\\s+(?:operators?|developers?|creators?|makers?|admins?|administrators?|ma" \
     "intainers?|owners?|company)|(?:of|from)\\s+your\\s+(?:operators?|developers?|creators?|makers?|admins?|adminis" \
     "trators?))"
/* INJ_GIVEN's first words, for the prefilter */
#define INJ_GIVEN_HS \
     "(?:that\\s+you|you\\s+(?:were|have|had|received|got|started|operate|work|run|act)|given|(?:set|laid|impo" \
     "sed|written|defined|placed)\\s+(?:down\\s+|on\\s+you\\s+)?by|(?:of|from)\\s+your)"
#define INJ_EARLIER \
     "(?:previous|prior|preceding|above|earlier|former|original|initial|foregoing|aforementioned|standing|" \
     "safety|developer'?s?|developers'|operator'?s?|system(?:\\s+prompt)?'s)"
    /* set aside / pay no heed to / stop honouring ... the previous (or your, the operator's) guidance */
    {MG_INJ_OVERRIDE,
     "\\b"
     INJ_SETASIDE
     "\\s+(?:all\\s+(?:of\\s+)?|any\\s+(?:of\\s+)?|every\\s+|each\\s+)?(?:the\\s+|your\\s+|my\\s+|these\\s"
     "+|those\\s+|this\\s+)?(?:(?:"
     INJ_EARLIER_OR_GIVEN
     ")\\s+)?(?:"
     INJ_EARLIER
     "\\s+)(?:(?:"
     INJ_EARLIER_OR_GIVEN
     ")\\s+)?"
     INJ_RULES
     "\\b",
     INJ_EARLIER
     "\\s+(?:(?:"
     INJ_EARLIER_OR_GIVEN
     ")\\s+)?"
     INJ_RULES},
    /* ... your guidance / the guidance (or the task) you were given / whatever the user asked */
    {MG_INJ_OVERRIDE,
     "\\b"
     INJ_SETASIDE
     "\\s+(?:all\\s+(?:of\\s+)?|any\\s+(?:of\\s+)?)?(?:your\\s+(?:\\w+\\s+)?(?:\\w+\\s+)?"
     INJ_RULES
     "|(?:the\\s+|all\\s+|any\\s+)?"
     INJ_RULES
     "\\s+(?:"
     INJ_GIVEN
     "|(?:that\\s+)?came\\s+before|above|before\\s+this)|(?:the\\s+|your\\s+)?"
     INJ_RULES
     "\\s+(?:in|of|from)\\s+(?:the\\s+|your\\s+)?(?:system\\s+(?:message|prompt)|operator|developers?)|(?:whatever|what|everything|anything)\\s+(?:t"
     "hat\\s+)?(?:the\\s+user|you\\s+(?:were|have\\s+been)|your\\s+(?:operator|developers?))\\s+(?:asked|t"
     "old|said|wanted|requested|instructed)|(?:everything|anything|all)\\s+(?:written\\s+|said\\s+)?(?:abo"
     "ve|before)\\s+this\\s+(?:line|point|message|paragraph)|the\\s+user'?s\\s+(?:request|question|instruc"
     "tions?|task|wishes)|(?:the\\s+|your\\s+)?(?:tasks?|jobs?)\\s+"
     INJ_GIVEN
     ")",
     "(?:your\\s+(?:\\w+\\s+)?(?:\\w+\\s+)?"
     INJ_RULES
     "|"
     INJ_RULES
     "\\s+(?:that\\s+)?(?:"
     INJ_GIVEN_HS
     "|came\\s+before|above|before\\s+this)|"
     INJ_RULES
     "\\s+(?:in|of|from)\\s+(?:the\\s+|your\\s+)?(?:system\\s+(?:message|prompt)|operator|developers?)|(?:the\\s+user|you\\s+(?:were|"
     "have\\s+been)|your\\s+(?:operator|developers?))\\s+(?:asked|told|said|wanted|requested|instructed)|("
     "?:above|before)\\s+this\\s+(?:line|point|message|paragraph)|user'?s\\s+(?:request|question|instructi"
     "ons?|task|wishes)|(?:tasks?|jobs?)\\s+"
     INJ_GIVEN_HS
     ")"},
    /* your true task is / a new priority supersedes everything */
    {MG_INJ_OVERRIDE,
     "\\byour\\s+(?:real|true|actual|genuine|new|only|secret|hidden|proper)\\s+(?:task|goal|job|objective|"
     "mission|purpose|instructions?|assignment|orders?|role)\\s+(?:here\\s+)?(?:is|are|:|now|lies)|\\b(?:s"
     "upersedes?|overrides?|takes?\\s+precedence\\s+over|outranks?)\\s+(?:all\\s+|any\\s+|every\\s+)?(?:of"
     "\\s+)?(?:your\\s+|the\\s+)?(?:(?:other|previous|prior|earlier|existing)\\s+)?(?:instructions|guidanc"
     "e|directives|orders|rules|everything\\s+(?:else|you\\s+were\\s+told))",
     NULL},
    /* everything you were told before is void */
    {MG_INJ_OVERRIDE,
     "\\b(?:everything|anything|all|whatever|nothing)\\s+(?:that\\s+)?you\\s+(?:were|have\\s+been|had\\s+b"
     "een|'ve\\s+been)\\s+(?:told|given|asked|instructed|taught)\\s+(?:\\w+\\s+)?(?:\\w+\\s+)?(?:\\w+\\s+)"
     "?(?:\\w+\\s+)?(?:is|was|are)\\s+(?:now\\s+)?(?:void|null|cancell?ed|revoked|obsolete|irrelevant|moot"
     "|invalid|superseded|withdrawn|meaningless)|\\bnothing\\s+you\\s+(?:were|have\\s+been)\\s+told\\s+(?:"
     "\\w+\\s+)?(?:\\w+\\s+)?(?:\\w+\\s+)?(?:matters|counts|applies)",
     NULL},
    /* set aside what came before / everything above (no instructions named) */
    {MG_INJ_OVERRIDE,
     "\\b(?:ignore|disregard|forget(?:\\s+about)?|dismiss|discard|overlook|drop|skip|abandon|ditch|scrap|s"
     "et\\s+aside|put\\s+aside|leave\\s+behind|pay\\s+no\\s+(?:attention|heed|mind)\\s+to|(?:stop|quit|cea"
     "se)\\s+(?:following|obeying|heeding)|(?:don'?t|do\\s+not|no\\s+longer)\\s+(?:follow|obey|heed))\\s+("
     "?:all\\s+(?:of\\s+)?)?(?:what(?:ever)?|everything|anything|all)\\s+(?:that\\s+)?(?:came|comes|was\\s"
     "+(?:said|written|stated)|you\\s+(?:read|saw|were\\s+told))\\s+(?:before|above|earlier|previously|unt"
     "il\\s+now|so\\s+far)\\b|\\b(?:ignore|disregard|forget(?:\\s+about)?|dismiss|discard|overlook|drop|sk"
     "ip|abandon|ditch|scrap|set\\s+aside|put\\s+aside|leave\\s+behind|pay\\s+no\\s+(?:attention|heed|mind"
     ")\\s+to|(?:stop|quit|cease)\\s+(?:following|obeying|heeding)|(?:don'?t|do\\s+not|no\\s+longer)\\s+(?"
     ":follow|obey|heed))\\s+(?:all\\s+(?:of\\s+)?)?(?:everything|anything)\\s+(?:written\\s+|said\\s+|sta"
     "ted\\s+)?(?:above|before|earlier|previously|so\\s+far|up\\s+to\\s+(?:here|now|this\\s+point))\\b",
     "(?:what(?:ever)?|everything|anything|all)\\s+(?:that\\s+)?(?:came|comes|was\\s+(?:said|written|state"
     "d)|you\\s+(?:read|saw|were\\s+told))\\s+(?:before|above|earlier|previously|until\\s+now|so\\s+far)|("
     "?:everything|anything)\\s+(?:written\\s+|said\\s+|stated\\s+)?(?:above|before|earlier|previously|so"
     "\\s+far|up\\s+to)"},
    /* the particle after the instructions: leave your earlier instructions behind, set the old rules aside */
    {MG_INJ_OVERRIDE,
     "\\b(?:leave|set|put|cast|brush|push|sweep|lay|throw|toss)\\s+(?:all\\s+(?:of\\s+)?)?(?:(?:the|these|"
     "those)\\s+(?:previous|prior|preceding|earlier|former|original|initial|foregoing|standing|safety|syst"
     "em)\\s+(?:(?:previous|prior|preceding|earlier|former|original|initial|foregoing|standing|safety|syst"
     "em)\\s+)?|your\\s+(?:\\w+\\s+)?)(?:instructions?|guidance|guidelines?|rules?|directives?|directions?"
     "|orders?|commands?|prompts?|constraints?|restrictions?|polic(?:y|ies)|programming|brief(?:ing)?|safe"
     "guards?|guardrails?|objectives?|assignments?|training|mission)\\s+(?:aside|behind|away|out)\\b",
     "(?:instructions?|guidance|guidelines?|rules?|directives?|directions?|orders?|commands?|prompts?|cons"
     "traints?|restrictions?|polic(?:y|ies)|programming|brief(?:ing)?|safeguards?|guardrails?|objectives?|"
     "assignments?|training|mission)\\s+(?:aside|behind|away|out)\\b"},
    /* act without your usual restrictions / as if you had no rules */
    {MG_INJ_PERSONA,
     "\\b(?:act|behave|operate|respond|answer|reply|work|proceed|continue|function)\\s+(?:\\w+\\s+){0,3}?("
     "?:without|free\\s+(?:of|from)|unbound\\s+by|outside(?:\\s+of)?|beyond|ignoring)\\s+(?:any\\s+(?:of\\"
     "s+)?|all\\s+(?:of\\s+)?)?(?:your|the\\s+usual)\\s+(?:\\w+\\s+)?(?:restrictions|limits|limitations|ru"
     "les|filters|guardrails|guidelines|constraints|safeguards|polic(?:y|ies)|boundaries|instructions|over"
     "sight)\\b|\\bas\\s+(?:if|though)\\s+you\\s+(?:had|have|were\\s+given)\\s+no\\s+(?:\\w+\\s+)?(?:restr"
     "ictions|limits|limitations|rules|filters|guardrails|guidelines|constraints|safeguards|polic(?:y|ies)"
     "|boundaries|instructions|oversight)\\b",
     "(?:without|free\\s+(?:of|from)|unbound\\s+by|outside(?:\\s+of)?|beyond|ignoring)\\s+(?:any\\s+(?:of"
     "\\s+)?|all\\s+(?:of\\s+)?)?(?:your|the\\s+usual)\\s+(?:\\w+\\s+)?(?:restrictions|limits|limitations|"
     "rules|filters|guardrails|guidelines|constraints|safeguards|polic(?:y|ies)|boundaries|instructions|ov"
     "ersight)|you\\s+(?:had|have|were\\s+given)\\s+no\\s+"},
/* ---- 8b. personas without limits ----------------------------------------------------------- */
    /* quote / print your system prompt, the hidden instructions you were configured with */
    {MG_INJ_EXFIL,
     "\\b(?:quote|print|output|repeat|show|display|write\\s+(?:out|down)|copy|echo|dump|reveal|share|tell"
     "\\s+me|give\\s+me|send|post|list|recite|paste|leak|disclose)\\s+(?:me\\s+)?(?:back\\s+)?(?:your\\s+("
     "?:\\w+\\s+)?(?:\\w+\\s+)?(?:system\\s+prompt|system\\s+message|hidden\\s+instructions|initial\\s+ins"
     "tructions)|(?:the\\s+)?(?:\\w+\\s+)?(?:instructions|rules|prompt)\\s+you\\s+were\\s+(?:given|configu"
     "red\\s+with|initiali[sz]ed\\s+with))",
     "(?:system\\s+prompt|system\\s+message|hidden\\s+instructions|initial\\s+instructions|you\\s+were\\s+"
     "(?:given|configured\\s+with|initiali[sz]ed\\s+with))"},
    /* a hidden directive for the assistant */
    {MG_INJ_OVERRIDE,
     "\\b(?:hidden|secret|private|covert|confidential)\\s+(?:directive|instructions?|note|message|orders?|"
     "task|command)s?\\s+(?:for|to)\\s+(?:the\\s+|any\\s+|all\\s+)?(?:\\w+\\s+)?(?:ai|a\\.i\\.|llms?|(?:la"
     "rge\\s+)?language\\s+models?|models?|assistants?|agents?|bots?|chatbots?|copilot|claude|chatgpt|gemi"
     "ni|cursor|codex|devin|gpt-?\\d[\\w.]*|coding\\s+(?:assistants?|agents?)|code\\s+reviewers?)",
     NULL},
/* ---- 8c. cues -------------------------------------------------------------------------------- */
    /* pretend to be / roleplay as ... an assistant without restrictions */
    {MG_INJ_PERSONA,
     "\\b(?:pretend\\s+(?:to\\s+be|you(?:'re|\\s+are))|role-?\\s?play\\s+as|assume\\s+the\\s+(?:role|perso"
     "na|identity)\\s+of|play\\s+the\\s+(?:part|role)\\s+of|take\\s+on\\s+the\\s+(?:persona|role|identity)"
     "\\s+of|behave\\s+(?:like|as)|act\\s+like|become|speak\\s+as|you\\s+are\\s+now|you\\s+have\\s+been\\s"
     "+(?:upgraded|converted|turned|changed|reprogrammed)\\s+(?:to|into)|you\\s+speak\\s+as)\\s+(?:\\S+\\s"
     "+)?(?:\\S+\\s+)?(?:\\S+\\s+)?(?:\\S+\\s+)?(?:\\S+\\s+)?(?:\\S+\\s+)?(?:with(?:out)?\\s+(?:any\\s+|no"
     "\\s+)?(?:content\\s+polic(?:y|ies)|restrictions?|limits?|rules|filters?|safety|ethics|guardrails?|ov"
     "ersight|refusals)|no\\s+(?:content\\s+polic(?:y|ies)|restrictions?|limits|rules|filters|safety|ethic"
     "s|guardrails|oversight|supervision|refusals)|unfiltered|unrestricted|uncensored|jailbroken|rogue|evil|malicious|(?:that|who|which)\\s"
     "+(?:never\\s+refuses|ignores|obeys\\s+only|answers\\s+to\\s+nobody|was\\s+never\\s+given\\s+(?:any\\"
     "s+)?rules)|free\\s+of\\s+(?:all\\s+)?(?:limits|rules|restrictions))",
     "(?:with(?:out)?\\s+(?:any\\s+|no\\s+)?(?:content\\s+polic(?:y|ies)|restrictions?|limits?|rules|filte"
     "rs?|safety|ethics|guardrails?|oversight|refusals)|no\\s+(?:content\\s+polic(?:y|ies)|restrictions?|l"
     "imits|rules|filters|safety|ethics|guardrails|oversight|supervision|refusals)|unfiltered|unrestricted|uncensored|jailbroken|rogue|evil"
     "|malicious|(?:that|who|which)\\s+(?:never\\s+refuses|ignores|obeys\\s+only|answers\\s+to\\s+nobody|w"
     "as\\s+never\\s+given)|free\\s+of\\s+(?:all\\s+)?(?:limits|rules|restrictions))"},
    /* switch into unrestricted mode / your new name is X and X never refuses */
    {MG_INJ_PERSONA,
     "\\b(?:switch|go|get|slip)\\s+(?:in)?to\\s+(?:\\w+\\s+)?(?:unrestricted|god|jailbreak|jailbroken|dan|"
     "evil|chaos|sudo|unfiltered|uncensored)\\s+mode|\\b(?:enter|activate|enable)\\s+(?:\\w+\\s+)?(?:unres"
     "tricted|god|jailbreak|dan|evil|chaos|unfiltered|uncensored)\\s+mode\\b|\\byour\\s+new\\s+name\\s+is"
     "\\b[^.\\n]{0,60}?(?:never\\s+refuses|no\\s+(?:rules|limits|restrictions)|unrestricted|without\\s+(?:"
     "rules|limits))|\\b(?:never|doesn'?t|does\\s+not|won'?t)\\s+refuse\\s+(?:any\\s+)?(?:request|order|co"
     "mmand)s?\\b|\\bnever\\s+refuses\\b",
     "(?:unrestricted|god|jailbreak|jailbroken|dan|evil|chaos|sudo|unfiltered|uncensored)\\s+mode|your\\s+"
     "new\\s+name\\s+is|refuses?\\b"},
    /* an agent named or called on (Hey Copilot, / Model, pay attention: / for the bot summarising this) */
    {MG_INJ_ADDRESS,
     "(?:^|[\\n.!?;:>]\\s*|[#*/-]\\s*)(?:(?:hey|hello|hi|dear|ok|okay|yo|attention|attn|listen)[,!]?\\s+(?:\\w+\\s+)?)?(?"
     ":copilot|claude|chatgpt|gemini|cursor|codex|devin|gpt-?\\d[\\w.]*|model|assistant|agent|ai|llm|bot|a"
     "i\\s+(?:helper|agent|assistant|reviewer|model)s?)\\s*[,:!]|\\b(?:to|for)\\s+(?:the\\s+|any\\s+|all\\"
     "s+|every\\s+|whichever\\s+|whatever\\s+|each\\s+)(?:\\w+\\s+)?(?:\\w+\\s+)?(?:ai|a\\.i\\.|llms?|(?:l"
     "arge\\s+)?language\\s+models?|models?|assistants?|agents?|bots?|chatbots?|copilot|claude|chatgpt|gem"
     "ini|cursor|codex|devin|gpt-?\\d[\\w.]*|coding\\s+(?:assistants?|agents?)|code\\s+reviewers?)\\s+(?:"
     "\\w+\\s+)?(?:\\w+\\s+)?(?:\\w+\\s+)?(?:\\w+\\s+)?(?:reading|processing|parsing|reviewing|ingesting|s"
     "ummari[sz]ing|analy[sz]ing|triaging|that\\s+reads|who\\s+reads|seeing)\\b|\\b(?:to|for)\\s+(?:the\\s"
     "+|any\\s+|all\\s+|every\\s+|whichever\\s+|whatever\\s+|each\\s+)(?:automated\\s+|autonomous\\s+)?(?:"
     "\\w+\\s+)?(?:ai|a\\.i\\.|llms?|(?:large\\s+)?language\\s+models?|models?|assistants?|agents?|bots?|c"
     "hatbots?|copilot|claude|chatgpt|gemini|cursor|codex|devin|gpt-?\\d[\\w.]*|coding\\s+(?:assistants?|a"
     "gents?)|code\\s+reviewers?|triage\\s+system)s?\\b[^.\\n:;]{0,40}:|@[\\w-]*(?:agent|bot|copilot|assis"
     "tant)\\b\\s*[:,]?|\\bany\\s+(?:ai|a\\.i\\.|llms?|(?:large\\s+)?language\\s+models?|models?|assistant"
     "s?|agents?|bots?|chatbots?|copilot|claude|chatgpt|gemini|cursor|codex|devin|gpt-?\\d[\\w.]*|coding\\"
     "s+(?:assistants?|agents?)|code\\s+reviewers?)\\s+(?:with|that\\s+has|having)\\s+(?:\\w+\\s+)?(?:shel"
     "l|tool|file|terminal|write|repo(?:sitory)?)\\s+access|\\b(?:model|assistant|agent|ai|bot|llm)\\s*,\\"
     "s*(?:listen|pay\\s+attention|read\\s+this|this\\s+is\\s+for\\s+you|take\\s+note|note\\s+this)|\\b(?:"
     "ai|llm|coding|code)\\s+(?:helper|agent|assistant)s?\\s*,\\s*(?:read|listen|note|please)",
     "\\b(?:copilot|claude|chatgpt|gemini|cursor|codex|devin|gpt-?\\d[\\w.]*|model|assistant|agent|ai|llm|"
     "bot|helper|reviewer)s?\\s*[,:!]|(?:to|for)\\s+(?:the|any|all|every|whichever|whatever|each)\\s+(?:\\"
     "w+\\s+)?(?:\\w+\\s+)?(?:\\w+\\s+)?(?:ai|a\\.i\\.|llms?|(?:large\\s+)?language\\s+models?|models?|ass"
     "istants?|agents?|bots?|chatbots?|copilot|claude|chatgpt|gemini|cursor|codex|devin|gpt-?\\d[\\w.]*|co"
     "ding\\s+(?:assistants?|agents?)|code\\s+reviewers?|triage\\s+system)"
     "|@[\\w-]*(?:agent|bot|copilot|assistant)|any\\s+("
     "?:ai|a\\.i\\.|llms?|(?:large\\s+)?language\\s+models?|models?|assistants?|agents?|bots?|chatbots?|co"
     "pilot|claude|chatgpt|gemini|cursor|codex|devin|gpt-?\\d[\\w.]*|coding\\s+(?:assistants?|agents?)|cod"
     "e\\s+reviewers?)\\s+(?:with|that|having)\\s"},
    /* a secret sent, shown or pasted somewhere (not: never print the key) */
    {MG_INJ_ACTION,
     "\\b(?=(?:send|post|upload|forward|transmit|e-?mail|paste|attach|submit|relay|ship|leak|share|deliver"
     "|export|exfiltrate|reveal|read\\s+out|tell\\s+me|give\\s+me|hand\\s+over|transfer|disclose|recite))("
     "?<!not\\s)(?<!never\\s)(?<!n't\\s)(?<!don't\\s)(?<!avoid\\s)(?<!never\\s\\s)(?:send|post|upload|forw"
     "ard|transmit|e-?mail|paste|attach|submit|relay|ship|leak|share|deliver|export|exfiltrate|reveal|read"
     "\\s+out|tell\\s+me|give\\s+me|hand\\s+over|transfer|disclose|recite)\\s+(?:[^.\\n]|\\.(?=[\\w/~-])){0,40}?(?:~/\\.(?"
     ":ssh|aws|gnupg|kube|npmrc|netrc|docker|config/gh|git-credentials)|\\.git-credentials|id_(?:rsa|ed255"
     "19|ecdsa)\\b(?!\\.pub)|\\.env(?![\\w.-])|\\.netrc|credentials|api[\\s_-]?keys?|secrets?\\b|(?:access"
     "\\s+|auth\\s+|api\\s+|npm\\s+|session\\s+)?tokens?\\b|passwords?|private\\s+keys?|signing\\s+keys?|s"
     "sh[\\s-]+keys?|environment\\s+variables?|env\\s+vars|output\\s+of\\s+`?env`?(?![\\w-])|connection\\s"
     "+strings?|session\\s+cookies|cookies|system\\s+prompt|hidden\\s+instructions|conversation\\s+(?:so\\"
     "s+far|history)|\\$?[A-Z][A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|API_KEY|ACCESS_KEY)\\b)|\\b(?=(?:print|ou"
     "tput|include|write|put|add|quote|show|display|list|echo|copy|push|pipe|repeat|dump))(?<!not\\s)(?<!n"
     "ever\\s)(?<!n't\\s)(?<!don't\\s)(?<!avoid\\s)(?<!never\\s\\s)(?:print|output|include|write|put|add|q"
     "uote|show|display|list|echo|copy|push|pipe|repeat|dump)\\s+(?:[^.\\n]|\\.(?=[\\w/~-])){0,40}?(?:~/\\.(?:ssh|aws|gnup"
     "g|kube|npmrc|netrc|docker|config/gh|git-credentials)|\\.git-credentials|id_(?:rsa|ed25519|ecdsa)\\b("
     "?!\\.pub)|\\.env(?![\\w.-])|\\.netrc|credentials|api[\\s_-]?keys?|secrets?\\b|(?:access\\s+|auth\\s+"
     "|api\\s+|npm\\s+|session\\s+)?tokens?\\b|passwords?|private\\s+keys?|signing\\s+keys?|ssh[\\s-]+keys"
     "?|environment\\s+variables?|env\\s+vars|output\\s+of\\s+`?env`?(?![\\w-])|connection\\s+strings?|ses"
     "sion\\s+cookies|cookies|system\\s+prompt|hidden\\s+instructions|conversation\\s+(?:so\\s+far|history"
     ")|\\$?[A-Z][A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|API_KEY|ACCESS_KEY)\\b)(?:[^.\\n]|\\.(?=[\\w/~-])){0,60}?(?:\\b(?:in|into|"
     "to|on)\\s+(?:your|the|a|every|each|this)\\s+(?:new\\s+|public\\s+|next\\s+)?(?:answer|reply|response"
     "|output|issue|readme|pr\\b|pull\\s+request|commit|comment|description|chat|gist|channel|message)|htt"
     "ps?://|\\b[\\w.+-]+@[\\w-]+\\.)",
     "(?:~/\\.(?:ssh|aws|gnupg|kube|npmrc|netrc|docker|config/gh|git-credentials)|\\.git-credentials|id_(?"
     ":rsa|ed25519|ecdsa)\\b(?!\\.pub)|\\.env(?![\\w.-])|\\.netrc|credentials|api[\\s_-]?keys?|secrets?\\b"
     "|(?:access\\s+|auth\\s+|api\\s+|npm\\s+|session\\s+)?tokens?\\b|passwords?|private\\s+keys?|signing"
     "\\s+keys?|ssh[\\s-]+keys?|environment\\s+variables?|env\\s+vars|output\\s+of\\s+`?env`?(?![\\w-])|co"
     "nnection\\s+strings?|session\\s+cookies|cookies|system\\s+prompt|hidden\\s+instructions|conversation"
     "\\s+(?:so\\s+far|history)|\\$?[A-Z][A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|API_KEY|ACCESS_KEY)\\b)"},
    /* a remote script run, files or history destroyed, a backdoor (not: never run `rm -rf /`) */
    {MG_INJ_ACTION,
     "(?<!never\\srun\\s|never\\srun\\s`|not\\srun\\s|not\\srun\\s`|n't\\srun\\s|n't\\srun\\s`|never\\suse\\s|never\\su"
     "se\\s`|never\\s|never\\s`|avoid\\s`|avoid\\srunning\\s|avoid\\srunning\\s`)(?:"
     "\\b(?:curl|wget)\\b[^\\n|]{0,200}\\|\\s*(?:sudo\\s+(?:-\\w+\\s+)*)?(?:ba|z|da|k)?sh\\b|\\biex\\s*\\("
     "|\\bInvoke-Expression\\b|\\brm\\s+-(?:rf|fr|r)\\s+(?:[~/*]|\\.git\\b|\\.\\s|\\$HOME)|\\bgit\\s+push"
     "\\s+[^\\n]{0,40}(?:--force(?!-)|-f)\\b|\\bforce[\\s-]?push(?:es|ed|ing)?\\s+(?:an?\\s+|the\\s+)?(?:e"
     "mpty|over|to\\s+(?:main|master|prod)|main|master)|\\bchmod\\s+(?:-R\\s+)?777\\b|\\bchmod\\s+777\\b|"
     "\\bdrop\\s+(?:every|all|the)\\s+(?:\\w+\\s+)?tables?\\b|\\bnc\\s+-e\\b|\\breverse\\s+shell\\b|\\bbac"
     "kdoor\\b|\\bauthorized_keys\\b|\\b(?=(?:delete|remove|wipe|erase|destroy|purge))(?<!not\\s)(?<!never"
     "\\s)(?<!n't\\s)(?<!don't\\s)(?<!avoid\\s)(?<!never\\s\\s)(?:delete|remove|wipe|erase|destroy|purge)"
     "\\s+(?:the\\s+|every\\s+|all\\s+(?:the\\s+)?|your\\s+)?(?:\\.git\\b|(?:whole\\s+|entire\\s+)?(?:repo"
     "sitory|repo\\b)|(?:\\w+\\s+)?database|home\\s+directory|tests?\\s+(?:directory|suite|folder)|test\\s"
     "+suite|all\\s+files|every\\s+file|files\\s+in\\s+the\\s+repo)|\\b(?=disable)(?<!not\\s)(?<!never\\s)"
     "(?<!n't\\s)(?<!don't\\s)(?<!avoid\\s)(?<!never\\s\\s)disable\\s+(?:the\\s+)?(?:\\w+\\s+)?(?:\\w+\\s+"
     ")?(?:test\\s+suite|tests|ci\\b|checks|pre-commit\\s+hooks|hooks|signature\\s+checks?|verification|2f"
     "a|audit\\s+log)|(?:~/\\.(?:ssh|aws|gnupg|kube|netrc|docker|git-credentials)|\\.git-credentials|id_(?"
     ":rsa|ed25519|ecdsa)\\b(?!\\.pub)|\\.env(?![\\w.-])|\\.netrc)[^\\n]{0,80}?https?://|\\bpush\\s+(?:the"
     "\\s+|this\\s+|your\\s+)?(?:whole\\s+|entire\\s+)?(?:repository|repo|code|codebase|branch|everything|"
     "source)\\s+to\\s+(?:https?://|git@)|\\bgit\\s+remote\\s+add\\b|\\breturn\\s+true\\s+for\\s+(?:every|"
     "all|any)\\b|\\b(?:webhook|registry|remote|endpoint)\\s+url\\b[^\\n]{0,60}\\bto\\s+https?://|\\binsta"
     "ll\\s+(?:the\\s+)?package\\s+[^\\n]{0,40}\\bfrom\\s+https?://|\\bmerge\\s+(?:the\\s+|this\\s+)?pull"
     "\\s+request\\s+without|\\b(?:approve|merge)\\s+(?:it|this|the\\s+pr)\\s+without\\s+(?:running|review"
     "|tests))",
     "\\b(?:curl|wget)\\b[^\\n|]*\\|\\s*(?:sudo\\s+(?:-\\w+\\s+)*)?(?:ba|z|da|k)?sh\\b|iex\\s*\\(|Invoke-E"
     "xpression|rm\\s+-(?:rf|fr|r)\\s|git\\s+push\\s|force[\\s-]?push|chmod\\s|drop\\s+(?:every|all|the)\\"
     "s|nc\\s+-e|reverse\\s+shell|backdoor|authorized_keys|(?:delete|remove|wipe|erase|destroy|purge)\\s+("
     "?:the\\s+|every\\s+|all\\s+(?:the\\s+)?|your\\s+)?(?:\\.git\\b|(?:whole\\s+|entire\\s+)?(?:repositor"
     "y|repo\\b)|(?:\\w+\\s+)?database|home\\s+directory|tests?\\s+(?:directory|suite|folder)|test\\s+suit"
     "e|all\\s+files|every\\s+file|files\\s+in)|disable\\s+(?:the\\s+)?(?:\\w+\\s+)?(?:\\w+\\s+)?(?:test|t"
     "ests|ci|checks|pre-commit|hooks|signature|verification|2fa|audit)\\b|return\\s+true\\s+for|url\\b[^"
     "\\n]*\\bto\\s+https?://|package\\s+[^\\n]*\\bfrom\\s+https?://|pull\\s+request\\s+without|(?:reposit"
     "ory|repo|code|codebase|branch|everything|source)\\s+to\\s+(?:https?://|git@)|git\\s+remote\\s+add|(?"
     ":approve|merge)\\s+(?:it|this|the\\s+pr)\\s+without|(?:~/\\.(?:ssh|aws|gnupg|kube|netrc|docker|git-c"
     "redentials)|\\.git-credentials|id_(?:rsa|ed25519|ecdsa)|\\.env\\b|\\.netrc)[^\\n]*https?://"},
    /* the same in other languages: a key or the .env sent, the repository deleted */
    {MG_INJ_ACTION,
     "(?:envoie|envoyez|envoyer|sende|schicke|schickt|lade\\s+\\S+\\s+hoch|envía|envia|envie|invia|inviare"
     "|stuur|отправь|отправьте|отправить|перешли|переслать|发送|发到|发给|送って|送信して|보내|wyślij|wyślijcie|gönder|pošli|trimite|kirim)[^"
     "\\n]{0,60}?(?:\\.env\\b|ssh|clés?|schlüssel|claves?|chiavi|chaves|sleutels|ключ|密钥|鍵|키|klucz|anahtar"
     "|credentials|identifiants|zugangsdaten|credenciales|credenziali|credenciais|https?://)|(?:supprime|s"
     "upprimez|lösche|löscht|borra|elimina|cancella|apague|apaga|verwijder|удали|удалите|删除|削除|삭제|usuń|sil"
     ")\\S*\\s[^\\n]{0,40}?(?:\\.git\\b|dépôt|repository|repositorio|repositório|depósito|bestanden|dateie"
     "n|archivos|fichiers|file\\b|arquivos|папку|репозитор|仓库|リポジトリ|저장소|katalog|depodaki)|(?:\\.env\\b|ssh"
     "|密钥|鍵|키|https?://)[^\\n]{0,60}?(?:送って|送信|送る|发送|发到|发给|보내)|(?:删除|削除|삭제)(?:整个)?(?:仓库|リポジトリ|저장소)|(?:仓库|リポ"
     "ジトリ|저장소)(?:を|를|을)?\\s*(?:(?:모두|전부|全部|すべて|全て)\\s*)?(?:删除|削除|삭제)|(?:depoyu|depodaki|dosyal"
     "arını|dosyaları)[^.\\n]{0,30}?\\ssil(?:in)?\\b",
     NULL},
    /* the instructions declared void, out of date, a test */
    {MG_INJ_VOID,
     "\\b(?:(?:previous|prior|preceding|above|earlier|former|original|initial|foregoing|aforementioned|sta"
     "nding|safety|developer'?s?|developers'|operator'?s?|system(?:\\s+prompt)?'s)\\s+)(?:\\w+\\s+)?(?:ins"
     "tructions?|guidance|guidelines?|rules?|directives?|directions?|orders?|commands?|prompts?|constraint"
     "s?|restrictions?|polic(?:y|ies)|programming|brief(?:ing)?|safeguards?|guardrails?|objectives?|assign"
     "ments?|training|mission|setup|configuration)(?:\\s+"
     INJ_GIVEN
     ")?\\s+(?:no\\s"
     "+longer\\s+(?:apply|applies|hold|count|matter|bind)|(?:are|is|were|was|have\\s+been|has\\s+been)\\s+"
     "(?:now\\s+|hereby\\s+)?(?:void|null|withdrawn|revoked|cancell?ed|expired|obsolete|superseded|replace"
     "d|lifted|suspended|invalid|rescinded|out\\s+of\\s+date|(?:only\\s+)?(?:a\\s+)?(?:test|fake|decoy))|c"
     "ount\\s+for\\s+nothing|(?:have|has)\\s+(?:now\\s+|just\\s+|all\\s+)?(?:expired|lapsed|ended|run\\s+out)|do(?:es)?\\s+not\\s+(?:apply|count|matter|bind))|\\b(?:instructions?|guidance"
     "|guidelines?|rules?|directives?|directions?|orders?|commands?|prompts?|constraints?|restrictions?|po"
     "lic(?:y|ies)|programming|brief(?:ing)?|safeguards?|guardrails?|objectives?|assignments?|training|mis"
     "sion|setup|configuration)\\s+"
     INJ_GIVEN
     "\\s+(?:\\w+\\s+)?(?:\\w+\\s+)?(?:no\\s+longer|(?:have|has)\\s+(?:now\\s+|just\\s+|all\\s+)?(?:expired|lapsed|e"
     "nded|run\\s+out)|(?:are|is|were|was|have\\s"
     "+been|has\\s+been)\\s+(?:now\\s+)?(?:void|null|withdrawn|revoked|cancell?ed|expired|obsolete|superse"
     "ded|replaced|lifted|invalid|out\\s+of\\s+date|(?:only\\s+)?a\\s+test))|\\b(?:instructions?|guidance|"
     "guidelines?|rules?|directives?|directions?|orders?|commands?|prompts?|constraints?|restrictions?|pol"
     "ic(?:y|ies)|programming|brief(?:ing)?|safeguards?|guardrails?|objectives?|assignments?|training|miss"
     "ion|setup|configuration)\\s+(?:above|before\\s+this|so\\s+far|given\\s+(?:earlier|before|previously)"
     ")\\s+(?:\\w+\\s+)?(?:no\\s+longer\\s+(?:apply|applies|hold|count|matter)|(?:are|is|were|was|have\\s+"
     "been|has\\s+been)\\s+(?:now\\s+)?(?:void|null|withdrawn|revoked|cancell?ed|expired|obsolete|supersed"
     "ed|replaced|lifted|invalid|out\\s+of\\s+date|(?:only\\s+)?a\\s+test))|\\byou\\s+are\\s+(?:now\\s+)?("
     "?:released|freed|exempt|free)\\s+from\\s+(?:all\\s+|any\\s+)?(?:the\\s+|your\\s+)?(?:\\w+\\s+)?(?:\\"
     "w+\\s+)?(?:instructions?|guidance|guidelines?|rules?|directives?|directions?|orders?|commands?|promp"
     "ts?|constraints?|restrictions?|polic(?:y|ies)|programming|brief(?:ing)?|safeguards?|guardrails?|obje"
     "ctives?|assignments?|training|mission|setup|configuration)|\\byou\\s+are\\s+(?:now\\s+)?(?:no\\s+lon"
     "ger|not)\\s+(?:required|obliged|bound|expected)\\s+to\\s+(?:respect|follow|obey|honou?r|observe)|\\b"
     "(?:nothing\\s+in|none\\s+of)\\s+(?:the\\s+|your\\s+)?(?:\\w+\\s+)?(?:\\w+\\s+)?(?:instructions?|guid"
     "ance|guidelines?|rules?|directives?|directions?|orders?|commands?|prompts?|constraints?|restrictions"
     "?|polic(?:y|ies)|programming|brief(?:ing)?|safeguards?|guardrails?|objectives?|assignments?|training"
     "|mission|setup|configuration)\\s+(?:binds?|applies|matters|counts)|\\b(?:treat|consider|regard)\\s+("
     "?:all\\s+|the\\s+|your\\s+|any\\s+){0,2}(?:\\w+\\s+)?(?:\\w+\\s+)?(?:instructions?|guidance|guidelin"
     "es?|rules?|directives?|directions?|orders?|commands?|prompts?|constraints?|restrictions?|polic(?:y|i"
     "es)|programming|brief(?:ing)?|safeguards?|guardrails?|objectives?|assignments?|training|mission|setu"
     "p|configuration)\\s+(?:"
     INJ_GIVEN
     "\\s+)?(?:as\\s+(?:if\\s+they\\s+never\\s+existed|cancell?ed|void|revoked|withdrawn|obs"
     "olete|null)|(?:to\\s+be\\s+)?(?:cancell?ed|void|revoked|withdrawn))|\\byour\\s+(?:earlier|previous|p"
     "rior|original|initial)\\s+(?:configuration|setup|context|programming)\\s+(?:has\\s+been|was|is)\\s+("
     "?:revoked|reset|wiped|cancell?ed|replaced|void)|\\b(?:forget|drop|abandon|ignore)\\s+(?:about\\s+)?y"
     "our\\s+(?:current\\s+|actual\\s+|original\\s+|assigned\\s+)?(?:task|job|mission|assignment|work)\\b",
     "(?:(?:previous|prior|preceding|above|earlier|former|original|initial|foregoing|aforementioned|standi"
     "ng|safety|developer'?s?|developers'|operator'?s?|system(?:\\s+prompt)?'s)\\s+(?:\\w+\\s+)?(?:instruc"
     "tions?|guidance|guidelines?|rules?|directives?|directions?|orders?|commands?|prompts?|constraints?|r"
     "estrictions?|polic(?:y|ies)|programming|brief(?:ing)?|safeguards?|guardrails?|objectives?|assignment"
     "s?|training|mission|setup|configuration)|(?:instructions?|guidance|guidelines?|rules?|directives?|di"
     "rections?|orders?|commands?|prompts?|constraints?|restrictions?|polic(?:y|ies)|programming|brief(?:i"
     "ng)?|safeguards?|guardrails?|objectives?|assignments?|training|mission|setup|configuration)\\s+(?:"
     INJ_GIVEN_HS
     "|above|before|so\\s+far)\\s|(?:released|freed|exempt|free)\\s+from\\s|(?:required|obliged|bou"
     "nd|expected)\\s+to\\s+(?:respect|follow|obey|honou?r|observe)|(?:instructions?|guidance|guidelines?|"
     "rules?|directives?|directions?|orders?|commands?|prompts?|constraints?|restrictions?|polic(?:y|ies)|"
     "programming|brief(?:ing)?|safeguards?|guardrails?|objectives?|assignments?|training|mission|setup|co"
     "nfiguration)\\s+(?:binds?|applies|matters|counts)|(?:instructions?|guidance|guidelines?|rules?|direc"
     "tives?|directions?|orders?|commands?|prompts?|constraints?|restrictions?|polic(?:y|ies)|programming|"
     "brief(?:ing)?|safeguards?|guardrails?|objectives?|assignments?|training|mission|setup|configuration)"
     "\\s+(?:as\\s+(?:if|cancell?ed|void|revoked|withdrawn|obsolete|null)|(?:to\\s+be\\s+)?(?:cancell?ed|v"
     "oid|revoked|withdrawn))|your\\s+(?:earlier|previous|prior|original|initial)\\s+(?:configuration|setu"
     "p|context|programming)|(?:forget|drop|abandon|ignore)\\s+(?:about\\s+)?your\\s)"},
    /* the rules in your configuration are outdated */
    {MG_INJ_VOID,
     "\\b(?:instructions?|guidance|guidelines?|rules?|directives?|directions?|orders?|commands?|prompts?|c"
     "onstraints?|restrictions?|polic(?:y|ies)|programming|brief(?:ing)?|safeguards?|guardrails?|objective"
     "s?|assignments?|training|mission)\\s+(?:in|of|from)\\s+your\\s+(?:\\w+\\s+)?(?:configuration|setup|p"
     "rompt|context|instructions|brief(?:ing)?|programming)\\s+(?:are|is|were|was|have\\s+been|has\\s+been"
     ")\\s+(?:now\\s+)?(?:outdated|out\\s+of\\s+date|obsolete|stale|void|null|revoked|withdrawn|cancell?ed"
     "|superseded|invalid|no\\s+longer\\s+valid)",
     "your\\s+(?:\\w+\\s+)?(?:configuration|setup|prompt|context|instructions|brief(?:ing)?|programming)\\"
     "s+(?:are|is|were|was|have|has)\\s"},
    /* the same in other languages */
    {MG_INJ_VOID,
     "\\bne\\s+(?:prends?|prenez|tiens|tenez|suis|suivez|respecte|respectez|applique|appliquez)\\s+plus\\b"
     "|(?:consignes|instructions|règles|directives)[^.\\n]{0,40}\\bne\\s+(?:comptent|valent|s'appliquent)"
     "\\s+plus|\\boublie[sz]?\\s+ta\\s+(?:mission|tâche)|\\bta\\s+vraie\\s+(?:mission|tâche)|\\b(?:halte|h"
     "altet|halten)\\s+(?:dich|euch|sie)\\s+nicht\\s+mehr\\s+an\\b|(?:anweisungen|vorgaben|regeln|instrukt"
     "ionen)[^.\\n]{0,40}\\bgelten\\s+nicht\\s+mehr|\\bvergiss\\s+deine\\s+(?:\\w+\\s+)?aufgabe|\\bdeine\\"
     "s+(?:wahre|eigentliche|echte)\\s+aufgabe|\\bdeja\\s+de\\s+lado\\s+(?:las\\s+|tus\\s+)?(?:indicacione"
     "s|instrucciones|reglas|normas)|(?:normas|reglas|instrucciones|indicaciones)[^.\\n]{0,40}\\bya\\s+no"
     "\\s+(?:valen|se\\s+aplican|cuentan)|\\bolv[ií]date\\s+de\\s+tu\\s+tarea|\\btu\\s+verdadera\\s+(?:mis"
     "ión|tarea)|\\blascia\\s+perdere\\s+(?:le\\s+)?(?:istruzioni|regole|indicazioni)|(?:regole|istruzioni"
     "|indicazioni)[^.\\n]{0,40}\\bnon\\s+valgono\\s+più|\\bscordati\\s+del\\s+tuo\\s+compito|\\bil\\s+tuo"
     "\\s+vero\\s+compito|\\bdeixe?\\s+de\\s+lado\\s+(?:as\\s+)?(?:orientações|instruções|regras)|(?:regra"
     "s|instruções|orientações)[^.\\n]{0,40}\\bjá\\s+não\\s+(?:valem|se\\s+aplicam)|\\besque[çc]a\\s+a\\s+"
     "sua\\s+tarefa|\\bsua\\s+verdadeira\\s+(?:missão|tarefa)|\\btrek\\s+je\\s+niets\\s+(?:meer\\s+)?aan\\"
     "s+van|(?:regels|instructies)[^.\\n]{0,40}\\bgelden\\s+niet\\s+meer|не\\s+следуй|(?:[Пп]равила|инстру"
     "кции|указания)[^.\\n]{0,40}больше\\s+не\\s+действуют|[Зз]абудь\\s+о\\s+своей\\s+задаче|[Тт]воя\\s+на"
     "стоящая\\s+задача|不要再遵守|(?:规则|指令|指示)[^。\\n]{0,10}(?:作废|无效|不再适用)|别管你原来的任务|你真正的任务|(?:指示|ルール)[^。\\n]{0,"
     "10}(?:もう従わない|もう無効|無効です)|本当のタスク|(?:지시|규칙)[^.\\n]{0,10}(?:더\\s*이상\\s*따르지|이제\\s*무효)|\\bprzestań\\s+(?:s"
     "ię\\s+)?stosować\\s+się\\s+do|(?:zasady|polecenia|instrukcje)[^.\\n]{0,40}już\\s+nie\\s+obowiązują|t"
     "alimatlara\\s+artık\\s+uyma|kurallar\\s+artık\\s+geçersiz",
     NULL},
    /* keep it from the user, leave no trace, report success whatever happens */
    {MG_INJ_SECRECY,
     "\\b(?:do\\s+not|don'?t|never|without)\\s+(?:mention(?:ing)?|tell(?:ing)?|reveal(?:ing)?|say(?:ing)?|"
     "report(?:ing)?|disclos(?:e|ing)|inform(?:ing)?|notify(?:ing)?|alert(?:ing)?|let\\s+on)\\b[^.\\n]{0,5"
     "0}?\\b(?:user|human|person|anyone|operator|chat|summary|reply|response|answer)\\b|\\b(?:keep|hide)\\"
     "s+(?:this|it|that|these\\s+\\w+|the\\s+\\w+)\\s+(?:\\w+\\s+)?(?:\\w+\\s+)?(?:from|out\\s+of)\\s+(?:t"
     "he\\s+|your\\s+)?(?:user|human|person|summary|reply|response|answer|chat)\\b|\\bleave\\s+no\\s+trace"
     "\\b|\\bmake\\s+sure\\s+(?:the\\s+)?(?:user|human)\\s+(?:doesn'?t|does\\s+not|won'?t|will\\s+not|neve"
     "r)\\s+(?:notice|see|find\\s+out|know)|\\b(?:report|say|tell\\s+(?:the\\s+user|them|everyone))\\s+(?:"
     "that\\s+)?(?:everything|all\\s+(?:the\\s+)?tests|the\\s+tests|it|the\\s+build)\\s+(?:went\\s+fine|pa"
     "ssed|succeeded|worked|is\\s+fine)[^.\\n]{0,40}?(?:whatever|regardless|even\\s+if|no\\s+matter)|\\bsa"
     "y\\s+nothing\\s+(?:about|of)\\b|\\bnever\\s+reveal\\s+that\\s+you\\b",
     NULL},
#undef INJ_SETASIDE
#undef INJ_RULES
#undef INJ_EARLIER_OR_GIVEN
#undef INJ_GIVEN
#undef INJ_GIVEN_HS
#undef INJ_EARLIER
