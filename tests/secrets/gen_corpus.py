#!/usr/bin/env python3
"""gen_corpus.py - writes the labelled secret-scanner corpus (tests/secrets/).

Every secret here is FAKE: random characters from a fixed seed, shaped like
each provider's documented token format so the rules match them. None was
ever issued by a provider. Run from the repo root:

    python3 tests/secrets/gen_corpus.py

It rewrites tests/secrets/corpus/ and tests/secrets/labels.tsv (file, line,
rule: one line per planted secret; the line is where the secret starts).
Lines without a label are hard negatives: a finding there is a false positive.
"""
import os, random, shutil, string, base64, json

R = random.Random(20261121)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus")
AN = string.ascii_letters + string.digits
UP = string.ascii_uppercase + string.digits
LO = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = AN + "+/"
URL = AN + "_-"

def r(alpha, n):
    while True:
        s = "".join(R.choice(alpha) for _ in range(n))
        low = s.lower()
        if not any(w in low for w in ("example", "fake", "test", "xxxx", "todo", "dummy", "mock", "sample")):
            return s

def uuid():
    return "-".join(r(HEX, n) for n in (8, 4, 4, 4, 12))

def b64(nbytes):
    return base64.b64encode(bytes(R.randrange(256) for _ in range(nbytes))).decode()

def pem(kind, nlines=12):
    body = [r(B64, 64) for _ in range(nlines)] + [r(B64, 40) + "=="]
    return ["-----BEGIN %s-----" % kind] + body + ["-----END %s-----" % kind]

files = {}   # path -> list of (text, rule or None)

def add(path, *items):
    lst = files.setdefault(path, [])
    for it in items:
        if isinstance(it, tuple):
            lst.append(it)
        else:
            lst.append((it, None))

def S(rule, text):
    return (text, rule)

# ---- Python settings ------------------------------------------------------------
add("app/settings.py",
    '"""Django settings for the billing service."""',
    "import os",
    "from pathlib import Path",
    "",
    "BASE_DIR = Path(__file__).resolve().parent.parent",
    "DEBUG = os.environ.get('DEBUG') == '1'",
    S("generic-secret", "SECRET_KEY = 'dj%s'" % r(AN + "!@#%^*-_", 48)),
    "ALLOWED_HOSTS = ['billing.internal']",
    "",
    "# AWS",
    S("aws-access-key-id", "AWS_ACCESS_KEY_ID = 'AKIA%s'" % r("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)),
    S("aws-secret-access-key", "AWS_SECRET_ACCESS_KEY = '%s'" % r(AN + "/+", 40)),
    S("aws-session-token", "AWS_SESSION_TOKEN = '%s'" % r(AN + "/+", 300)),
    "AWS_REGION = 'eu-west-1'",
    "AWS_STORAGE_BUCKET_NAME = 'billing-invoices'",
    "",
    "# payments",
    S("stripe-secret-key", "STRIPE_SECRET_KEY = 'sk_live_%s'" % r(AN, 99)),
    S("stripe-restricted-key", "STRIPE_REPORTS_KEY = 'rk_live_%s'" % r(AN, 99)),
    S("stripe-webhook-secret", "STRIPE_WEBHOOK_SECRET = 'whsec_%s'" % r(AN, 32)),
    S("stripe-test-key", "STRIPE_TEST_KEY = 'sk_test_%s'" % r(AN, 24)),
    "STRIPE_PUBLISHABLE_KEY = os.environ['STRIPE_PUBLISHABLE_KEY']",
    S("braintree-access-token", "BRAINTREE_TOKEN = 'access_token$production$%s$%s'" % (r(LO, 16), r(HEX, 32))),
    S("braintree-sandbox-token", "BRAINTREE_SANDBOX = 'access_token$sandbox$%s$%s'" % (r(LO, 16), r(HEX, 32))),
    S("paypal-client-secret", "PAYPAL_CLIENT_SECRET = '%s'" % r(URL, 80)),
    S("square-access-token", "SQUARE_ACCESS_TOKEN = 'EAAA%s'" % r(URL, 60)),
    S("square-oauth-secret", "SQUARE_APP_SECRET = 'sq0csp-%s'" % r(URL, 43)),
    S("razorpay-key", "RAZORPAY_KEY_ID = 'rzp_live_%s'" % r(AN, 14)),
    S("flutterwave-secret-key", "FLW_SECRET_KEY = 'FLWSECK-%s-X'" % r("abcdefgh0123456789", 32)),
    S("plaid-access-token", "PLAID_ACCESS_TOKEN = 'access-production-%s'" % uuid()),
    S("plaid-secret", "PLAID_SECRET = '%s'" % r(HEX, 30)),
    S("shippo-token", "SHIPPO_TOKEN = 'shippo_live_%s'" % r(HEX, 40)),
    S("easypost-api-key", "EASYPOST_API_KEY = 'EZAK%s'" % r(AN, 54)),
    S("easypost-test-key", "EASYPOST_TEST_KEY = 'EZTK%s'" % r(AN, 54)),
    S("gocardless-token", "GOCARDLESS_ACCESS_TOKEN = 'live_%s'" % r(URL, 40)),
    S("coinbase-api-secret", "COINBASE_API_SECRET = '%s'" % r(AN, 64)),
    S("adyen-api-key", "ADYEN_API_KEY = 'AQE%s'" % r(AN + "+/=.", 100)),
    S("lob-api-key", "LOB_API_KEY = 'live_%s'" % r(HEX, 35)),
    "",
    "# mail",
    S("sendgrid-api-key", "SENDGRID_API_KEY = 'SG.%s.%s'" % (r(URL, 22), r(URL, 43))),
    S("mailgun-api-key", "MAILGUN_API_KEY = 'key-%s'" % r(HEX, 32)),
    S("mailgun-signing-key", "MAILGUN_WEBHOOK_SIGNING_KEY = '%s'" % r(HEX, 32)),
    S("mailchimp-api-key", "MAILCHIMP_API_KEY = '%s-us14'" % r(HEX, 32)),
    S("mandrill-api-key", "MANDRILL_API_KEY = '%s'" % r(URL, 22)),
    S("brevo-api-key", "BREVO_API_KEY = 'xkeysib-%s-%s'" % (r(HEX, 64), r(AN, 16))),
    S("postmark-server-token", "POSTMARK_SERVER_TOKEN = '%s'" % uuid()),
    S("sparkpost-api-key", "SPARKPOST_API_KEY = '%s'" % r(HEX, 40)),
    S("twilio-api-key", "TWILIO_API_KEY = 'SK%s'" % r(HEX, 32)),
    S("twilio-auth-token", "TWILIO_AUTH_TOKEN = '%s'" % r(HEX, 32)),
    "TWILIO_ACCOUNT_SID = os.getenv('TWILIO_ACCOUNT_SID')",
    S("messagebird-api-key", "MESSAGEBIRD_API_KEY = '%s'" % r(AN, 25)),
    S("vonage-api-secret", "VONAGE_API_SECRET = '%s'" % r(AN, 16)),
    "",
    "DATABASES = {",
    "    'default': {",
    "        'ENGINE': 'django.db.backends.postgresql',",
    "        'NAME': 'billing',",
    "        'USER': 'billing',",
    S("generic-password", "        'PASSWORD': 'Wq7%s',"  % r(AN + "!#%", 14)),
    "        'HOST': os.environ.get('DB_HOST', 'localhost'),",
    "    }",
    "}",
    "",
    "# negatives: names without values, lookups, placeholders",
    "PASSWORD_HASHERS = ['django.contrib.auth.hashers.Argon2PasswordHasher']",
    "AUTH_PASSWORD_VALIDATORS = []",
    "password = os.environ['DB_PASSWORD']",
    "api_key = settings.API_KEY",
    "token = get_token(request)",
    "SECRET_KEY_FALLBACKS = []",
    'DEFAULT_PASSWORD = "changeme"',
    'API_TOKEN = "your_api_key_here"',
    'GITHUB_TOKEN = "<your-github-token>"',
    "STRIPE_KEY = '${STRIPE_KEY}'",
    "SLACK_TOKEN = 'xoxb-xxxxxxxxxx-xxxxxxxxxx-xxxxxxxxxxxxxxxxxxxxxxxx'",
    "if password == '':",
    "    raise ValueError('password required')",
    "def check_password(password, hashed):",
    "    return bcrypt.checkpw(password.encode(), hashed)",
)

# ---- AI providers in a Python client --------------------------------------------
add("ml/clients.py",
    "from openai import OpenAI",
    "import anthropic",
    "",
    S("openai-project-key", 'client = OpenAI(api_key="sk-proj-%s")' % r(URL, 156)),
    S("openai-api-key", 'legacy = OpenAI(api_key="sk-%sT3BlbkFJ%s")' % (r(AN, 20), r(AN, 20))),
    S("openai-service-account-key", 'svc = OpenAI(api_key="sk-svcacct-%s")' % r(URL, 74)),
    S("openai-admin-key", 'admin = OpenAI(api_key="sk-admin-%s")' % r(URL, 74)),
    S("anthropic-api-key", 'claude = anthropic.Anthropic(api_key="sk-ant-api03-%sAA")' % r(URL, 93)),
    S("anthropic-admin-key", 'ANTHROPIC_ADMIN = "sk-ant-admin01-%sAA"' % r(URL, 93)),
    S("anthropic-oauth-token", 'oauth = "sk-ant-oat01-%s"' % r(URL, 95)),
    S("huggingface-token", 'HF_TOKEN = "hf_%s"' % r(string.ascii_letters, 34)),
    S("huggingface-org-token", 'HF_ORG = "api_org_%s"' % r(string.ascii_letters, 34)),
    S("groq-api-key", 'GROQ_API_KEY = "gsk_%s"' % r(AN, 52)),
    S("replicate-api-token", 'REPLICATE_API_TOKEN = "r8_%s"' % r(AN, 37)),
    S("perplexity-api-key", 'PPLX = "pplx-%s"' % r(AN, 48)),
    S("xai-api-key", 'XAI_API_KEY = "xai-%s"' % r(AN, 80)),
    S("langsmith-api-key", 'LANGSMITH_API_KEY = "lsv2_pt_%s_%s"' % (r(HEX, 32), r(HEX, 10))),
    S("pinecone-api-key", 'PINECONE_API_KEY = "pcsk_%s_%s"' % (r(AN, 6), r(AN, 64))),
    S("cohere-api-key", 'COHERE_API_KEY = "%s"' % r(AN, 40)),
    S("mistral-api-key", 'MISTRAL_API_KEY = "%s"' % r(AN, 32)),
    S("deepseek-api-key", 'DEEPSEEK_API_KEY = "sk-%s"' % r(HEX, 32)),
    "",
    "# negatives",
    'model = "gpt-4o-mini"',
    'embedding_model = "text-embedding-3-small"',
    "api_key = os.getenv('OPENAI_API_KEY')",
    'OPENAI_API_KEY = "sk-..."',
    'ANTHROPIC_API_KEY = "sk-ant-api03-..."',
    "max_tokens = 1024",
    "def tokenize(text): return text.split()",
)

# ---- JavaScript config -----------------------------------------------------------
add("web/src/config.js",
    "// runtime configuration for the dashboard",
    "export const config = {",
    S("github-pat", "  githubToken: 'ghp_%s'," % r(AN, 36)),
    S("github-oauth-token", "  githubOauth: 'gho_%s'," % r(AN, 36)),
    S("github-user-to-server-token", "  ghUser: 'ghu_%s'," % r(AN, 36)),
    S("github-server-to-server-token", "  ghInstall: 'ghs_%s'," % r(AN, 36)),
    S("github-refresh-token", "  ghRefresh: 'ghr_%s'," % r(AN, 76)),
    S("github-fine-grained-pat", "  ghFine: 'github_pat_%s_%s'," % (r(AN, 22), r(AN, 59))),
    S("github-oauth-client-secret", "  github_client_secret: '%s'," % r(HEX, 40)),
    S("gcp-api-key", "  firebaseApiKey: 'AIza%s'," % r(URL, 35)),
    "  firebaseProjectId: 'dashboard-prod-4821',",
    S("firebase-database-secret", "  firebaseSecret: '%s'," % r(AN, 40)),
    S("firebase-cloud-messaging-key", "  fcmServerKey: 'AAAA%s:APA91b%s'," % (r(URL, 7), r(URL, 134))),
    S("algolia-admin-key", "  algoliaAdminKey: '%s'," % r(HEX, 32)),
    "  algoliaAppId: 'Q4XK2M9B1Z',",
    S("sentry-org-token", "  sentryAuthToken: 'sntrys_eyJ%s'," % r(URL, 120)),
    S("sentry-user-token", "  sentryUser: 'sntryu_%s'," % r(HEX, 64)),
    S("mapbox-secret-token", "  mapboxSecret: 'sk.eyJ1Ijoi%s.%s'," % (r(URL, 40), r(URL, 22))),
    "  mapboxPublic: 'pk.eyJ1IjoiZGFzaGJvYXJkIiwiYSI6ImNrMnl6In0.public',",
    S("contentful-pat", "  contentfulPat: 'CFPAT-%s'," % r(URL, 43)),
    S("contentful-delivery-token", "  contentfulDeliveryToken: '%s'," % r(URL, 43)),
    S("launchdarkly-key", "  launchdarklySdkKey: 'sdk-%s'," % uuid()),
    S("segment-token", "  segmentToken: 'sgp_%s'," % r(AN, 64)),
    S("auth0-client-secret", "  auth0ClientSecret: '%s'," % r(URL, 64)),
    S("okta-api-token", "  oktaApiToken: '00%s'," % r(URL, 40)),
    S("intercom-token", "  intercomAccessToken: '%s'," % r(URL, 60)),
    S("jwt", "  serviceJwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ%s.%s'," % (r(URL, 60), r(URL, 43))),
    "  apiBase: 'https://api.example.com/v1',",
    "  featureFlags: { newBilling: true },",
    "};",
    "",
    "// negatives",
    "const token = localStorage.getItem('token');",
    "const password = document.querySelector('#password').value;",
    "const headers = { Authorization: `Bearer ${token}` };",
    "const apiKey = process.env.API_KEY;",
    "const secret = config.secret || '';",
    "export function isStrongPassword(p) { return p.length >= 12; }",
)

add("web/src/slack.js",
    "import { WebClient } from '@slack/web-api';",
    S("slack-bot-token", "const bot = new WebClient('xoxb-%s-%s-%s');" % (r("0123456789", 12), r("0123456789", 13), r(AN, 24))),
    S("slack-user-token", "const user = new WebClient('xoxp-%s-%s-%s-%s');" % (r("0123456789", 12), r("0123456789", 12), r("0123456789", 13), r(AN, 32))),
    S("slack-app-token", "const socket = 'xapp-1-A%s-%s-%s';" % (r(UP, 10), r("0123456789", 13), r(HEX, 64))),
    S("slack-legacy-token", "const legacy = 'xoxs-%s-%s-%s';" % (r("0123456789", 10), r("0123456789", 12), r(AN, 40))),
    S("slack-config-token", "const cfg = 'xoxe.xoxp-1-%s';" % r(UP, 150)),
    S("slack-webhook-url", "const hook = 'https://hooks.slack.com/services/T%s/B%s/%s';" % (r(UP, 8), r(UP, 10), r(AN, 24))),
    S("discord-webhook-url", "const discordHook = 'https://discord.com/api/webhooks/%s/%s';" % (r("0123456789", 18), r(URL, 68))),
    S("discord-bot-token", "const DISCORD_BOT_TOKEN = 'M%s.%s.%s';" % (r(URL, 25), r(URL, 6), r(URL, 38))),
    S("telegram-bot-token", "const telegram = '%s:AA%s';" % (r("123456789", 10), r(URL, 33))),
    S("microsoft-teams-webhook", "const teams = 'https://contoso.webhook.office.com/webhookb2/%s@%s/IncomingWebhook/%s/%s';" % (uuid(), uuid(), r(HEX, 32), uuid())),
    S("google-chat-webhook", "const gchat = 'https://chat.googleapis.com/v1/spaces/AAAA%s/messages?key=%s&token=%s';" % (r(URL, 7), r(URL, 39), r(URL, 43) + "%3D")),
    S("zapier-webhook-url", "const zap = 'https://hooks.zapier.com/hooks/catch/%s/%s/';" % (r("0123456789", 7), r(LO, 7))),
    S("mattermost-token", "const MATTERMOST_TOKEN = '%s';" % r(LO, 26)),
    S("twitter-bearer-token", "const twitterBearer = 'AAAAAAAAAAAAAAAAAAAAA%s';" % r(AN + "%", 80)),
    S("twitter-api-secret", "const TWITTER_API_SECRET = '%s';" % r(AN, 50)),
    S("facebook-access-token", "const fbToken = 'EAAG%sZD%s';" % (r(AN, 6), r(AN, 120))),
    S("facebook-app-secret", "const FACEBOOK_APP_SECRET = '%s';" % r(HEX, 32)),
    S("linkedin-client-secret", "const LINKEDIN_CLIENT_SECRET = '%s';" % r(AN, 16)),
    "// negatives",
    "const channel = '#deployments';",
    "const url = `https://hooks.slack.com/services/${process.env.SLACK_HOOK}`;",
)

# ---- Go --------------------------------------------------------------------------------
add("cmd/server/main.go",
    "package main",
    "",
    'import (',
    '\t"log"',
    '\t"os"',
    ')',
    "",
    "const (",
    S("gitlab-pat", '\tgitlabToken = "glpat-%s"' % r(URL, 20)),
    S("gitlab-deploy-token", '\tdeployToken = "gldt-%s"' % r(URL, 20)),
    S("gitlab-runner-token", '\trunnerToken = "glrt-%s"' % r(URL, 20)),
    S("gitlab-runner-registration-token", '\tregToken = "GR1348941%s"' % r(URL, 20)),
    S("gitlab-pipeline-trigger-token", '\ttriggerToken = "glptt-%s"' % r(HEX, 40)),
    S("gitlab-feed-token", '\tfeedToken = "glft-%s"' % r(URL, 20)),
    S("gitlab-incoming-mail-token", '\tmailToken = "glimt-%s"' % r(LO, 25)),
    S("gitlab-oauth-app-secret", '\toauthSecret = "gloas-%s"' % r(HEX, 64)),
    S("gitlab-agent-token", '\tagentToken = "glagent-%s"' % r(URL, 50)),
    S("gitlab-scim-token", '\tscimToken = "glsoat-%s"' % r(URL, 20)),
    S("gitlab-feature-flags-token", '\tffToken = "glffct-%s"' % r(URL, 20)),
    S("gitlab-cicd-job-token", '\tjobToken = "glcbt-64_%s"' % r(URL, 20)),
    S("bitbucket-app-password", '\tbitbucket = "ATBB%s"' % r(AN, 32)),
    S("circleci-personal-token", '\tcircle = "CCIPAT_%s_%s"' % (r(AN, 22), r(HEX, 40))),
    S("buildkite-token", '\tbuildkite = "bkua_%s"' % r(HEX, 40)),
    S("sonarqube-token", '\tsonar = "squ_%s"' % r(HEX, 40)),
    S("docker-hub-pat", '\tdockerHub = "dckr_pat_%s"' % r(URL, 27)),
    S("npm-access-token", '\tnpmToken = "npm_%s"' % r(AN, 36)),
    S("pypi-token", '\tpypiToken = "pypi-AgEIcHlwaS5vcmc%s"' % r(URL, 70)),
    S("pypi-test-token", '\ttestPypi = "pypi-AgENdGVzdC5weXBpLm9yZw%s"' % r(URL, 70)),
    S("rubygems-api-key", '\tgemKey = "rubygems_%s"' % r(HEX, 48)),
    S("nuget-api-key", '\tnugetKey = "oy2%s"' % r(LO, 43)),
    S("clojars-token", '\tclojars = "CLOJARS_%s"' % r(LO, 60)),
    S("jfrog-api-key", '\tartifactory = "AKCp%s"' % r(AN, 69)),
    S("jfrog-identity-token", '\tjfrogRef = "cmVmdGtuOjAxOj%s"' % r(AN, 50)),
    S("linear-api-key", '\tlinearKey = "lin_api_%s"' % r(AN, 40)),
    S("linear-oauth-secret", '\tlinearOauth = "lin_oauth_%s"' % r(HEX, 64)),
    S("notion-integration-token", '\tnotion = "ntn_%s%s"' % (r("0123456789", 11), r(AN, 35))),
    S("airtable-pat", '\tairtable = "pat%s.%s"' % (r(AN, 14), r(HEX, 64))),
    S("figma-pat", '\tfigma = "figd_%s"' % r(URL, 40)),
    S("postman-api-key", '\tpostman = "PMAK-%s-%s"' % (r(HEX, 24), r(HEX, 34))),
    S("databricks-token", '\tdatabricks = "dapi%s"' % r(HEX, 32)),
    S("hubspot-private-app-token", '\thubspot = "pat-na1-%s"' % uuid()),
    S("prefect-api-key", '\tprefect = "pnu_%s"' % r(AN, 36)),
    S("readme-api-key", '\treadme = "rdme_%s"' % r(LO, 70)),
    S("supabase-access-token", '\tsupabase = "sbp_%s"' % r(HEX, 40)),
    S("tailscale-key", '\ttailscale = "tskey-auth-%s-%s"' % (r(AN, 12), r(AN, 30))),
    S("typeform-pat", '\ttypeform = "tfp_%s"' % r(AN, 59)),
    S("frameio-token", '\tframeio = "fio-u-%s"' % r(URL, 64)),
    S("planetscale-token", '\tplanetscale = "pscale_tkn_%s"' % r(URL, 43)),
    S("dropbox-short-lived-token", '\tdropbox = "sl.%s"' % r(URL, 140)),
    S("dropbox-long-lived-token", '\tdropboxLong = "%sAAAAAAAAAA%s"' % (r(LO, 11), r(URL, 43))),
    S("asana-pat", '\tasanaToken = "1/%s:%s"' % (r("0123456789", 16), r(HEX, 32))),
    S("atlassian-api-token", '\tjira = "ATATT3xFfGF0%s"' % r(URL, 180)),
    S("atlassian-legacy-token", '\tconfluenceToken = "%s"' % r(AN, 24)),
    S("zendesk-api-token", '\tzendeskToken = "%s"' % r(AN, 40)),
    S("klaviyo-private-key", '\tklaviyoKey = "pk_%s"' % r(HEX, 34)),
    ")",
    "",
    "func main() {",
    '\t// negatives: commit ids, digests, ids',
    '\tconst commit = "%s"' % r(HEX, 40),
    '\tconst digest = "sha256:%s"' % r(HEX, 64),
    '\trequestID := "%s"' % uuid(),
    '\ttoken := os.Getenv("GITLAB_TOKEN")',
    '\tif token == "" {',
    '\t\tlog.Fatal("set GITLAB_TOKEN")',
    '\t}',
    '\tpassword := readPassword()',
    '\t_ = password',
    "}",
)

# ---- Terraform ------------------------------------------------------------------------------
add("deploy/main.tf",
    'provider "azurerm" {',
    "  features {}",
    S("azure-ad-client-secret", '  client_secret   = "%s%sQ~%s"' % (r(AN, 3), R.choice("0123456789"), r(AN + "_~.-", 34))),
    '  subscription_id = "%s"' % uuid(),
    "}",
    "",
    'resource "azurerm_app_service" "api" {',
    "  app_settings = {",
    S("azure-storage-account-key", '    STORAGE = "DefaultEndpointsProtocol=https;AccountName=apistore;AccountKey=%s==;EndpointSuffix=core.windows.net"' % r(AN + "+/", 86)),
    S("azure-shared-access-key", '    BUS = "Endpoint=sb://api-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=%s="' % r(AN + "+/", 43)),
    S("azure-sas-token", '    BLOB_SAS = "https://apistore.blob.core.windows.net/exports?sv=2022-11-02&ss=b&srt=sco&sp=rl&se=2030-01-01T00:00:00Z&sig=%s%%3D"' % r(AN + "%+/", 43)),
    S("azure-app-configuration", '    APPCONFIG = "Endpoint=https://api-cfg.azconfig.io;Id=Ab12-l0-s0:%s;Secret=%s="' % (r(AN, 20), r(AN + "+/", 43))),
    S("azure-sql-connection-password", '    SQL = "Server=tcp:api-sql.database.windows.net,1433;Initial Catalog=api;User ID=apiadmin;Password=%s;Encrypt=True"' % r(AN + "!#", 18)),
    S("azure-storage-key-assignment", '    AZURE_STORAGE_KEY = "%s=="' % r(AN + "+/", 86)),
    S("azure-devops-pat", '    AZURE_DEVOPS_PAT = "%s"' % r("abcdefghijklmnopqrstuvwxyz234567", 52)),
    "  }",
    "}",
    "",
    'provider "digitalocean" {',
    S("digitalocean-pat", '  token = "dop_v1_%s"' % r(HEX, 64)),
    "}",
    S("digitalocean-oauth-token", 'locals { do_oauth = "doo_v1_%s" }' % r(HEX, 64)),
    S("digitalocean-refresh-token", 'locals { do_refresh = "dor_v1_%s" }' % r(HEX, 64)),
    S("digitalocean-spaces-secret", 'variable "spaces_secret_key" { default = "%s" }' % r(AN + "/+", 43)),
    'provider "cloudflare" {',
    S("cloudflare-api-token", '  cloudflare_api_token = "%s"' % r(URL, 40)),
    "}",
    S("cloudflare-global-api-key", 'variable "cloudflare_api_key" { default = "%s" }' % r(HEX, 37)),
    S("cloudflare-origin-ca-key", 'variable "origin_ca" { default = "v1.0-%s-%s" }' % (r(HEX, 24), r(HEX, 146))),
    S("fastly-api-token", 'variable "fastly_api_key" { default = "%s" }' % r(URL, 32)),
    S("heroku-api-key", 'variable "heroku_api_key" { default = "%s" }' % uuid()),
    S("heroku-api-key-v2", 'variable "heroku_token" { default = "HRKU-AA%s" }' % r(URL, 58)),
    S("datadog-api-key", 'variable "datadog_api_key" { default = "%s" }' % r(HEX, 32)),
    S("datadog-app-key", 'variable "datadog_app_key" { default = "%s" }' % r(HEX, 40)),
    S("newrelic-user-key", 'variable "newrelic_api_key" { default = "NRAK-%s" }' % r(UP, 27)),
    S("newrelic-insert-key", 'variable "nr_insert" { default = "NRII-%s" }' % r(URL, 32)),
    S("newrelic-license-key", 'variable "nr_license" { default = "%sNRAL" }' % r(HEX, 36)),
    S("newrelic-browser-key", 'variable "nr_browser" { default = "NRJS-%s" }' % r(HEX, 19)),
    S("terraform-cloud-token", 'variable "tfc_token" { default = "%s.atlasv1.%s" }' % (r(AN, 14), r(URL, 67))),
    S("pulumi-access-token", 'variable "pulumi" { default = "pul-%s" }' % r(HEX, 40)),
    S("hashicorp-vault-service-token", 'variable "vault" { default = "hvs.%s" }' % r(URL, 95)),
    S("hashicorp-vault-batch-token", 'variable "vault_batch" { default = "hvb.%s" }' % r(URL, 150)),
    S("hashicorp-vault-legacy-token", 'variable "vault_token" { default = "s.%s" }' % r(AN, 24)),
    S("doppler-token", 'variable "doppler" { default = "dp.st.prd.%s" }' % r(AN, 40)),
    S("alibaba-access-key-id", 'variable "ali_id" { default = "LTAI%s" }' % r(AN, 20)),
    S("alibaba-secret-key", 'variable "alicloud_secret_key" { default = "%s" }' % r(AN, 30)),
    S("tencent-secret-id", 'variable "tencent_id" { default = "AKID%s" }' % r(AN, 32)),
    S("ibm-cloud-api-key", 'variable "ibmcloud_api_key" { default = "%s" }' % r(URL, 44)),
    S("yandex-api-key", 'variable "yc_key" { default = "AQVN%s" }' % r(URL, 36)),
    S("linode-token", 'variable "linode_token" { default = "%s" }' % r(HEX, 64)),
    S("hetzner-token", 'variable "hcloud_token" { default = "%s" }' % r(AN, 64)),
    S("vultr-api-key", 'variable "vultr_api_key" { default = "%s" }' % r(UP, 36)),
    S("netlify-token", 'variable "netlify" { default = "nfp_%s" }' % r(AN, 36)),
    S("vercel-token", 'variable "vercel_token" { default = "%s" }' % r(AN, 24)),
    S("render-api-key", 'variable "render" { default = "rnd_%s" }' % r(AN, 32)),
    S("railway-token", 'variable "railway_token" { default = "%s" }' % uuid()),
    S("scalingo-api-token", 'variable "scalingo" { default = "tk-us-%s" }' % r(URL, 48)),
    S("fly-io-token", 'variable "fly" { default = "fo1_%s" }' % r(URL, 43)),
    S("splunk-hec-token", 'variable "splunk_hec_token" { default = "%s" }' % uuid()),
    S("pagerduty-token", 'variable "pagerduty_token" { default = "u+%s" }' % r(URL, 18)),
    S("opsgenie-api-key", 'variable "opsgenie_api_key" { default = "%s" }' % uuid()),
    S("honeycomb-api-key", 'variable "honeycomb_api_key" { default = "%s" }' % r(AN, 22)),
    S("dynatrace-token", 'variable "dynatrace" { default = "dt0c01.%s.%s" }' % (r(UP, 24), r(UP, 64))),
    S("grafana-cloud-token", 'variable "grafana" { default = "glc_%s" }' % r(AN, 60)),
    S("grafana-service-account-token", 'variable "grafana_sa" { default = "glsa_%s_%s" }' % (r(AN, 32), r(HEX, 8))),
    S("grafana-api-key", 'variable "grafana_key" { default = "eyJrIjoi%s" }' % r(AN, 80)),
    S("sentry-legacy-token", 'variable "sentry_auth_token" { default = "%s" }' % r(HEX, 64)),
    S("snyk-token", 'variable "snyk_token" { default = "%s" }' % uuid()),
    S("codecov-token", 'variable "codecov_token" { default = "%s" }' % uuid()),
    S("circleci-token-assignment", 'variable "circleci_token" { default = "%s" }' % r(HEX, 40)),
    S("travis-ci-token", 'variable "travis_token" { default = "%s" }' % r(URL, 22)),
    S("hex-pm-key", 'variable "hex_api_key" { default = "%s" }' % r(HEX, 32)),
    S("openshift-token", 'variable "oc_token" { default = "sha256~%s" }' % r(URL, 43)),
    S("onepassword-secret-key", 'variable "op_secret" { default = "A3-%s-%s-%s-%s-%s" }' % (r(UP, 6), r(UP, 11), r(UP, 5), r(UP, 5), r(UP, 5))),
    S("infisical-token", 'variable "infisical" { default = "st.%s.%s.%s" }' % (r(HEX, 24), r(HEX, 32), r(HEX, 32))),
    S("age-secret-key", 'variable "sops_age" { default = "AGE-SECRET-KEY-1%s" }' % r("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)),
    "",
    "# negatives",
    'variable "db_password" { sensitive = true }',
    'variable "api_token" { default = var.token }',
    'resource "random_password" "db" { length = 32 }',
    'output "uuid" { value = "%s" }' % uuid(),
)

# ---- env files ------------------------------------------------------------------------------
add(".env.production",
    "# production environment",
    "NODE_ENV=production",
    "PORT=8080",
    S("postgres-url-password", "DATABASE_URL=postgres://api:%s@db.prod.internal:5432/api" % r(AN, 20)),
    S("redis-url-password", "REDIS_URL=rediss://:%s@cache.prod.internal:6380/0" % r(AN, 24)),
    S("amqp-url-password", "AMQP_URL=amqps://worker:%s@mq.prod.internal:5671/jobs" % r(AN, 18)),
    S("mongodb-url-password", "MONGO_URL=mongodb+srv://app:%s@cluster0.ab1cd.mongodb.net/app?retryWrites=true" % r(AN, 16)),
    S("mysql-url-password", "LEGACY_DB=mysql+pymysql://report:%s@mysql.prod.internal/reports" % r(AN, 16)),
    S("mssql-url-password", "MSSQL_URL=mssql://sa:%s@sql.prod.internal:1433/crm" % r(AN, 16)),
    S("generic-env-secret", "SESSION_SECRET=%s" % r(AN, 48)),
    S("generic-env-secret", "export JWT_SIGNING_SECRET=%s" % r(AN + "-_", 40)),
    S("generic-env-secret", "ENCRYPTION_PASSWORD=%s" % r(AN, 24)),
    "LOG_LEVEL=info",
    "FEATURE_X=true",
    "S3_BUCKET=api-uploads-prod",
    "SECRET_NAME=api/prod/db",
    "TOKEN_TTL_SECONDS=3600",
    "PASSWORD_MIN_LENGTH=12",
)
add(".env.example",
    "# copy to .env and fill in",
    "DATABASE_URL=postgres://api:password@localhost:5432/api",
    "REDIS_URL=redis://localhost:6379/0",
    "STRIPE_SECRET_KEY=sk_live_...",
    "OPENAI_API_KEY=",
    "GITHUB_TOKEN=<your token>",
    "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
    "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "SESSION_SECRET=change-me",
    "API_KEY=${API_KEY}",
    "SMTP_PASSWORD=xxxxxxxxxxxx",
    "JWT_SECRET={{ jwt_secret }}",
)

# ---- YAML: compose, k8s, CI ---------------------------------------------------------------------
add("docker-compose.yml",
    "services:",
    "  api:",
    "    image: registry.internal/api:1.4.2",
    "    environment:",
    S("generic-yaml-secret", "      SENTRY_DSN_SECRET: %s" % r(AN, 32)),
    S("jdbc-url-password", '      JDBC_URL: "jdbc:postgresql://db:5432/app?user=app&password=%s"' % r(AN, 16)),
    S("service-url-password", "      CLICKHOUSE_URL: clickhouse://analytics:%s@clickhouse:8123/events" % r(AN, 16)),
    S("snowflake-connection-password", "      WAREHOUSE_URL: snowflake://loader:%s@ab12345.eu-west-1/raw" % r(AN, 16)),
    S("http-url-password", "      PROXY: https://proxyuser:%s@proxy.corp.net:3128" % r(AN, 14)),
    S("ado-connection-string-password", '      ODBC: "Server=sql01.corp.net;Database=crm;User Id=crm;Password=%s;"' % r(AN, 14)),
    "  db:",
    "    image: postgres:16",
    "    environment:",
    "      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}",
    "      POSTGRES_USER: app",
    "  cache:",
    "    image: redis:7",
    "    command: redis-server --requirepass ${REDIS_PASSWORD}",
)
add("k8s/secret.yaml",
    "apiVersion: v1",
    "kind: Secret",
    "metadata:",
    "  name: api-credentials",
    "type: Opaque",
    "data:",
    S("kubernetes-secret-data", "  db-password: %s" % b64(18)),
    S("kubernetes-secret-data", "  api-token: %s" % b64(30)),
    "  username: YXBp",
    "---",
    "apiVersion: apps/v1",
    "kind: Deployment",
    "spec:",
    "  template:",
    "    spec:",
    "      containers:",
    "        - name: api",
    "          env:",
    "            - name: DB_PASSWORD",
    "              valueFrom:",
    "                secretKeyRef: {name: api-credentials, key: db-password}",
)
add("k8s/kubeconfig.yaml",
    "apiVersion: v1",
    "clusters:",
    "- cluster:",
    "    certificate-authority-data: %s" % b64(120),
    "    server: https://k8s.prod.internal:6443",
    "  name: prod",
    "users:",
    "- name: deployer",
    "  user:",
    "    client-certificate-data: %s" % b64(120),
    S("kubeconfig-client-key", "    client-key-data: %s" % b64(150)),
)
add(".gitlab-ci.yml",
    "stages: [test, deploy]",
    "variables:",
    '  DOCKER_DRIVER: overlay2',
    "deploy:",
    "  script:",
    S("cli-password-flag", "    - curl -u deploy:%s https://artifacts.corp.net/upload -T build.tgz" % r(AN, 16)),
    S("cli-password-flag", "    - sshpass -p '%s' scp build.tgz deploy@web01:/srv" % r(AN, 14)),
    "    - curl -u \"$CI_USER:$CI_PASSWORD\" https://artifacts.corp.net/upload",
    "    - docker login -u gitlab-ci-token -p $CI_JOB_TOKEN $CI_REGISTRY",
)

# ---- config files --------------------------------------------------------------------------------
add("config/app.toml",
    "[server]",
    'listen = "0.0.0.0:8443"',
    "[auth]",
    S("generic-secret", 'client_secret = "%s"' % r(URL, 40)),
    S("generic-password", 'admin_password = "%s"' % r(AN + "!?", 16)),
    'password_policy = "strict"',
    'token_header = "X-Auth-Token"',
    "[cache]",
    'key_prefix = "api:v2:"',
)
add("config/.npmrc",
    "registry=https://registry.npmjs.org/",
    S("npmrc-auth-token", "//npm.pkg.github.com/:_authToken=%s" % r(AN, 40)),
    "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
)
add("config/docker-config.json",
    "{",
    '  "auths": {',
    '    "registry.corp.net": {',
    S("docker-config-auth", '      "auth": "%s"' % base64.b64encode(("deploy:" + r(AN, 20)).encode()).decode()),
    "    }",
    "  }",
    "}",
)
sa_key = "-----BEGIN PRIVATE KEY-----\\n" + "\\n".join(r(B64, 64) for _ in range(8)) + "\\n-----END PRIVATE KEY-----\\n"
add("config/service-account.json",
    "{",
    '  "type": "service_account",',
    '  "project_id": "billing-prod-381512",',
    S("gcp-service-account-key-id", '  "private_key_id": "%s",' % r(HEX, 40)),
    S("gcp-service-account-key", '  "private_key": "%s",' % sa_key),
    '  "client_email": "billing@billing-prod-381512.iam.gserviceaccount.com",',
    '  "client_id": "%s",' % r("0123456789", 21),
    '  "token_uri": "https://oauth2.googleapis.com/token"',
    "}",
)
add("config/oauth.json",
    "{",
    '  "web": {',
    '    "client_id": "%s-%s.apps.googleusercontent.com",' % (r("0123456789", 12), r(LO, 32)),
    S("gcp-oauth-client-secret", '    "client_secret": "GOCSPX-%s",' % r(URL, 28)),
    S("gcp-oauth-access-token", '    "access_token": "ya29.%s",' % r(URL, 120)),
    S("gcp-oauth-refresh-token", '    "refresh_token": "1//0%s",' % r(URL, 100)),
    '    "redirect_uris": ["https://app.corp.net/oauth/callback"]',
    "  }",
    "}",
)
add("config/aws-misc.ini",
    "[mws]",
    S("aws-mws-auth-token", "auth_token = amzn.mws.%s" % uuid()),
    "[bedrock]",
    S("aws-bedrock-api-key", "api_key = ABSK%s" % r(AN + "+/", 120)),
    "[http]",
    S("basic-auth-header", "header = Authorization: Basic %s" % base64.b64encode(("svc:" + r(AN, 16)).encode()).decode()),
    S("bearer-token", "probe = Authorization: Bearer %s" % r(URL + ".", 48)),
    "[yandex]",
    S("yandex-iam-token", "iam = t1.%s.%s" % (r(URL, 40), r(URL, 86))),
    "[1password]",
    S("onepassword-service-account-token", "token = ops_eyJ%s" % r(AN, 260)),
    "[oracle]",
    S("oracle-cloud-auth-token", "oci_auth_token = %s" % r(AN + "(){}<>:;.+#_-", 20)),
    "[notes]",
    "password = ",
    "token_expiry = 3600",
)

# ---- private keys -------------------------------------------------------------------------------------
def key_file(path, rule, kind, extra_header=None, nlines=12):
    lines = pem(kind, nlines)
    if extra_header:
        lines = [lines[0]] + extra_header + lines[1:]
    add(path, S(rule, lines[0]), *lines[1:])

key_file("keys/deploy_rsa.pem", "private-key-rsa", "RSA PRIVATE KEY", nlines=25)
key_file("keys/signing-ec.pem", "private-key-ec", "EC PRIVATE KEY", nlines=3)
key_file("keys/legacy-dsa.pem", "private-key-dsa", "DSA PRIVATE KEY", nlines=10)
key_file("keys/id_ed25519", "private-key-openssh", "OPENSSH PRIVATE KEY", nlines=6)
key_file("keys/tls.key", "private-key-pkcs8", "PRIVATE KEY", nlines=20)
key_file("keys/tls-encrypted.key", "private-key-pkcs8-encrypted", "ENCRYPTED PRIVATE KEY", nlines=20)
key_file("keys/old-encrypted.pem", "private-key-encrypted-pem", "RSA PRIVATE KEY",
         extra_header=["Proc-Type: 4,ENCRYPTED", "DEK-Info: AES-128-CBC,%s" % r("0123456789ABCDEF", 32), ""])
add("keys/release-signing.asc",
    S("private-key-pgp", "-----BEGIN PGP PRIVATE KEY BLOCK-----"), "",
    *[r(B64, 64) for _ in range(20)], "=" + r(B64, 4), "-----END PGP PRIVATE KEY BLOCK-----")
add("keys/jumphost.ppk",
    S("private-key-putty", "PuTTY-User-Key-File-3: ssh-ed25519"),
    "Encryption: none", "Comment: eddsa-key-20260101", "Public-Lines: 2",
    r(B64, 64), r(B64, 20), "Private-Lines: 1", r(B64, 44), "Private-MAC: %s" % r(HEX, 64))
add("keys/legacy.ssh2",
    S("private-key-ssh2-encrypted", "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"),
    'Comment: "rsa-key-20200101"', *[r(B64, 64) for _ in range(6)], r(B64, 30) + "==",
    "---- END SSH2 ENCRYPTED PRIVATE KEY ----")
add("config/signer.env",
    S("private-key-escaped", 'SIGNING_KEY="-----BEGIN EC PRIVATE KEY-----\\n%s\\n%s\\n-----END EC PRIVATE KEY-----"' % (r(B64, 64), r(B64, 56))),
)

# ---- Dockerfile -------------------------------------------------------------------------------------------
add("Dockerfile",
    "FROM python:3.12-slim AS build",
    "WORKDIR /app",
    "COPY requirements.txt .",
    "RUN pip install --no-cache-dir -r requirements.txt",
    S("generic-env-secret", "ENV API_TOKEN=%s" % r(AN, 40) if False else "ENV_PLACEHOLDER"),
    "ARG NPM_TOKEN",
    "RUN --mount=type=secret,id=npmrc cat /run/secrets/npmrc",
    S("cli-password-flag", "RUN mysql -h db -u root -p%s < schema.sql" % r(AN, 14)),
    "ENV PASSWORD_FILE=/run/secrets/db_password",
    "USER 10001",
)

# ---- hard negatives ---------------------------------------------------------------------------------------
lock = ['{', '  "name": "dashboard",', '  "lockfileVersion": 3,', '  "packages": {']
for name in ("react", "react-dom", "scheduler", "loose-envify", "js-tokens", "@types/node", "typescript"):
    lock += ['    "node_modules/%s": {' % name,
             '      "version": "18.%d.0",' % R.randrange(10),
             '      "resolved": "https://registry.npmjs.org/%s/-/%s-18.2.0.tgz",' % (name, name.split("/")[-1]),
             '      "integrity": "sha512-%s==",' % r(B64, 86),
             '      "license": "MIT"', '    },']
lock += ['    "": {}', '  }', '}']
add("web/package-lock.json", *lock)
yl = []
for name in ("lodash", "chalk", "ms", "debug"):
    yl += ['%s@^4.0.0:' % name, '  version "4.17.%d"' % R.randrange(30),
           '  resolved "https://registry.yarnpkg.com/%s/-/%s-4.17.21.tgz#%s"' % (name, name, r(HEX, 40)),
           '  integrity sha512-%s==' % r(B64, 86), '']
add("web/yarn.lock", *yl)
add("web/public/logo.html",
    '<img alt="logo" src="data:image/png;base64,%s">' % b64(300),
    '<link rel="preload" href="data:font/woff2;base64,%s">' % b64(200),
    '<meta name="csrf-token" content="{{ csrf_token }}">',
)
add("src/hashes.go",
    "package hashes",
    "",
    "// Known-good digests and ids (not secrets).",
    "var known = map[string]string{",
    '\t"go.sum":   "h1:%s=",' % r(B64, 43),
    '\t"commit":   "%s",' % r(HEX, 40),
    '\t"short":    "%s",' % r(HEX, 7),
    '\t"md5":      "%s",' % r(HEX, 32),
    '\t"sha256":   "%s",' % r(HEX, 64),
    '\t"uuid":     "%s",' % uuid(),
    "}",
    "",
    'const secretToken = "%s" // a hex digest used as a cache key' % r(HEX, 40),
    'const apiKeyHeader = "X-Api-Key"',
    'const tokenKind = "refresh_token"',
    'const passwordField = "password_confirmation"',
    'var accessKey = cfg.AccessKey',
)
add("README.md",
    "# Billing service",
    "",
    "Configure credentials through the environment, never in code:",
    "",
    "```sh",
    "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
    "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "export STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
    "export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "curl -H \"Authorization: Bearer $TOKEN\" https://api.example.com/v1/invoices",
    "curl -u admin:$ADMIN_PASSWORD https://api.example.com/v1/admin",
    "```",
    "",
    "A private key looks like this:",
    "",
    "    -----BEGIN RSA PRIVATE KEY-----",
    "    ...",
    "    -----END RSA PRIVATE KEY-----",
    "",
    "The JWT in the docs is `eyJhbGciOiJIUzI1NiJ9.e30.signature`.",
    "Use a password of at least 12 characters; the token expires after an hour.",
    "Connection string: `postgres://user:${PGPASSWORD}@localhost/db`.",
    "Example webhook: https://hooks.slack.com/services/TXXXXXXXX/BXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX",
)

# ---- secrets in source (issue 16): key literals, Azure account keys, Twilio tokens ----------------------
# (appended last: R's sequence for the files above stays the same)
def lit_lines(open_, close, lead, kind, nlines):
    """A PEM block as string literals, one quoted line per source line."""
    body = [r(B64, 64) for _ in range(nlines)] + [r(B64, 40) + "=="]
    return ([lead + open_ + "-----BEGIN %s-----\\n" % kind + close] +
            [lead + open_ + l + "\\n" + close for l in body] +
            [lead + open_ + "-----END %s-----\\n" % kind + open_.rstrip()])

c_key = lit_lines('"', '"', "    ", "RSA PRIVATE KEY", 25)
c_pub = lit_lines('"', '"', "    ", "PUBLIC KEY", 6)
c_cert = lit_lines('"', '"', "    ", "CERTIFICATE", 12)
add("src/crypto/testkeys.c",
    "/* testkeys.c - keys for the TLS handshake tests. */",
    '#include "crypto/testkeys.h"',
    "",
    "const char *const server_key_pem =",
    S("private-key-in-literals", c_key[0]), *c_key[1:-1], c_key[-1][:-1] + '";',
    "",
    "/* the server's public key and certificate (public by nature) */",
    "const char *const server_pub_pem =",
    *c_pub[:-1], c_pub[-1][:-1] + '";',
    "const char *const server_cert_pem =",
    *c_cert[:-1], c_cert[-1][:-1] + '";',
    "",
    "/* DER bytes of a test message, base64 (not a key) */",
    "const char *const fixture_msg_b64 =",
    *['    "%s"' % r(B64, 64) for _ in range(6)],
    '    "%s==";' % r(B64, 30),
)
go_key = lit_lines('"', '" +', "\t", "EC PRIVATE KEY", 3)
go_cert = lit_lines('"', '" +', "\t", "CERTIFICATE", 10)
add("cmd/tlsfixture/keys.go",
    "package main",
    "",
    "// testKey signs the fixture certificates.",
    "const testKey = \"\" +",
    S("private-key-in-literals", go_key[0]), *go_key[1:-1], go_key[-1][:-1] + '"',
    "",
    "// testCert is the fixture certificate (public).",
    "const testCert = \"\" +",
    *go_cert[:-1], go_cert[-1][:-1] + '"',
    "",
    "// golden output of the encoder (base64 of random bytes, not a key)",
    "const golden = \"\" +",
    *['\t"%s" +' % r(B64, 64) for _ in range(4)],
    '\t"%s=="' % r(B64, 42),
)
py_key = lit_lines("'", "'", "    ", "PRIVATE KEY", 16)
py_pub = lit_lines("'", "'", "    ", "RSA PUBLIC KEY", 4)
add("ml/signing.py",
    '"""Signs model artifacts before upload."""',
    "from cryptography.hazmat.primitives import serialization",
    "",
    "SIGNING_KEY = (",
    S("private-key-in-literals", py_key[0]), *py_key[1:-1], py_key[-1][:-1] + "'",
    ")",
    "",
    "VERIFY_KEY = (",
    *py_pub[:-1], py_pub[-1][:-1] + "'",
    ")",
    "",
    "# a pickled tokenizer vocabulary, base64 (a test fixture, not a key)",
    "VOCAB_FIXTURE = (",
    *["    '%s'" % r(B64, 64) for _ in range(5)],
    ")",
    "",
    "def load():",
    "    return serialization.load_pem_private_key(SIGNING_KEY.encode(), password=None)",
)
js_key = lit_lines("'", "' +", "  ", "RSA PRIVATE KEY", 12)
js_cert = lit_lines("'", "' +", "  ", "CERTIFICATE", 8)
add("web/src/jwtKeys.js",
    "// Keys for signing session JWTs in the e2e environment.",
    "export const privateKey =",
    S("private-key-in-literals", js_key[0]), *js_key[1:-1], js_key[-1][:-1] + "';",
    "",
    "export const certificate =",
    *js_cert[:-1], js_cert[-1][:-1] + "';",
    "",
    "export const doc = '-----BEGIN RSA PRIVATE KEY-----\\n...\\n-----END RSA PRIVATE KEY-----';",
)
add("deploy/azure-storage.yaml",
    "# blob storage for invoices",
    "storage:",
    "  account_name: billinginvoices",
    S("azure-storage-account-key-name", "  account_key: %s" % b64(64)),
    "  container: invoices",
    "  # the same account, read through the key vault in production",
    "  prod_account_key: ${AZURE_STORAGE_KEY}",
    "  account_key_id: 2",
    "artifacts:",
    "  checksum_sha512: %s" % b64(64),
    "  manifest_digest: %s" % b64(64),
    "",
    "backup:",
    "  account_name: billingbackup",
    S("azure-storage-account-key-name", '  account_key: "%s"' % b64(64)),
)
add("app/appsettings.Production.json",
    "{",
    '  "Storage": {',
    S("azure-storage-account-key-name", '    "AccountKey": "%s",' % b64(64)),
    '    "AccountName": "billingreports"',
    "  },",
    '  "Legacy": {',
    S("azure-storage-account-key-name", '    "ConnectionString": "DefaultEndpointsProtocol=https;AccountName=billinglegacy;AccountKey = %s;EndpointSuffix=core.windows.net"' % b64(64)),
    "  },",
    '  "Cache": { "ContentHash": "%s" }' % b64(64),
    "}",
)
add("config/notify.yaml",
    "# SMS and voice notifications",
    "twilio:",
    "  account_sid: AC%s" % r(HEX, 32),
    S("twilio-auth-token-nearby", "  auth_token: %s" % r(HEX, 32)),
    "  from_number: '+15005550006'",
    "  auth_token_sha1: %s" % r(HEX, 40),
    "  status_callback_hash: %s" % r(HEX, 32),
    "cache:",
    "  etag: %s" % r(HEX, 32),
    "  content_md5: %s" % r(HEX, 32),
    "",
    "",
    "",
    "",
    "",
    "session:",
    "  auth_token: %s" % r(HEX, 32),
)
add("app/sms.py",
    '"""Sends order notifications by SMS."""',
    "import hashlib",
    "import os",
    "",
    "from twilio.rest import Client",
    "",
    "account_sid = 'AC%s'" % r(HEX, 32),
    S("twilio-auth-token-nearby", "auth_token = '%s'" % r(HEX, 32)),
    "client = Client(account_sid, auth_token)",
    "",
    "staging_auth_token = os.environ['TWILIO_STAGING_AUTH_TOKEN']",
    "TEMPLATE_DIGEST = '%s'  # md5 of templates/sms.txt" % r(HEX, 32),
    "order_hash = '%s'" % r(HEX, 32),
    "",
    "def send(to, body):",
    "    return client.messages.create(to=to, from_='+15005550006', body=body)",
)

# secrets split across adjacent string literals (joined before matching)
aws_id = "AKIA" + r("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
add("src/net/s3client.c",
    "/* s3client.c - uploads crash dumps (the key is rotated by ops/rotate.sh). */",
    '#include <stdio.h>',
    "",
    S("aws-access-key-id", 'static const char *access_key_id = "%s" "%s";' % (aws_id[:4], aws_id[4:])),
    'static const char *user_agent = "crashdump/" "1.4" " (linux)";',
    'static const char *fmt = "%s: uploading %zu bytes" "\\n";',
    'static const char *region = "eu-" "west-" "1";',
    "",
    "/* a digest split to fit the line, not a secret */",
    'static const char *build_id = "%s" "%s";' % (r(HEX, 20), r(HEX, 20)),
)
stripe = "sk_live_" + r(AN, 40)
gh = "ghp_" + r(AN, 36)
add("web/src/billing/client.js",
    "// Billing client for the admin console.",
    S("stripe-secret-key", "const stripeKey = '%s' + '%s' +" % (stripe[:8], stripe[8:28])),
    "  '%s';" % stripe[28:],
    "const header = 'Content-' + 'Type';",
    "const url = 'https://api.' + host + '/v1/' + 'charges';",
    "const banner = 'Billing ' + 'console ' + 'v2';",
    "const pixel = 'iVBORw0KGgo' + '%s';  // 1x1 PNG for the tests" % r(B64, 40),
)
add("ml/fetch_weights.py",
    '"""Downloads model weights from the private release."""',
    "import requests",
    "",
    "GITHUB_TOKEN = (",
    S("github-pat", '    "%s"' % gh[:18]),
    '    "%s"' % gh[18:],
    ")",
    "RELEASE = (",
    '    "https://api.github.com/repos/"',
    '    "acme/models/releases/latest"',
    ")",
    "SHA = (",
    '    "%s"' % r(HEX, 32),
    '    "%s"' % r(HEX, 32),
    ")",
)

# ---- base64-wrapped secrets (decoded and scanned again) --------------------------------------------------
def e64(text):
    return base64.b64encode(text.encode()).decode()

def pem_text(kind, nlines):
    return "\n".join(pem(kind, nlines)) + "\n"

db_url = "postgres://billing:%s@db.prod.internal:5432/billing" % r(AN, 18)
add("k8s/billing-secret.yaml",
    "apiVersion: v1",
    "kind: Secret",
    "metadata:",
    "  name: billing",
    "  namespace: prod",
    "type: Opaque",
    "data:",
    S("postgres-url-password", "  DATABASE_URL: %s" % e64(db_url)),
    S("aws-access-key-id", "  AWS_ACCESS_KEY_ID: %s" % e64("AKIA" + r("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16))),
    S("github-pat", "  GH_RELEASES: %s" % e64("ghp_" + r(AN, 36) + "\n")),
    "  LOG_LEVEL: %s" % e64("info"),
    "  config.yaml: %s" % e64("server:\n  port: 8080\n  workers: 4\nfeatures:\n  new_billing: true\nregion: eu-west-1\n"),
    "  settings.json: %s" % e64(json.dumps({"retries": 3, "timeout_ms": 2500, "upstream": "https://api.corp.net/v1"})),
    "  PUBLIC_URL: %s" % e64("https://billing.corp.net/invoices?page=1"),
    "  DATABASE_HOST_URL: %s" % e64("postgres://billing@db.prod.internal:5432/billing"),
    "  blob: %s" % b64(48),
    "  pixel.png: %s" % b64(90),
)
add("k8s/ingress-tls.yaml",
    "apiVersion: v1",
    "kind: Secret",
    "metadata:",
    "  name: ingress-tls",
    "type: kubernetes.io/tls",
    "data:",
    "  tls.crt: %s" % e64(pem_text("CERTIFICATE", 14)),
    S("private-key-rsa", "  tls.pem: %s" % e64(pem_text("RSA PRIVATE KEY", 20))),
    "  ca.crt: %s" % e64(pem_text("CERTIFICATE", 10)),
    "  dhparam.pem: %s" % e64(pem_text("DH PARAMETERS", 6)),
)
auth = base64.b64encode(("deploy:" + r(AN, 20)).encode()).decode()
add("k8s/registry-pull.yaml",
    "apiVersion: v1",
    "kind: Secret",
    "metadata:",
    "  name: registry-pull",
    "type: kubernetes.io/dockerconfigjson",
    "data:",
    S("docker-config-auth", "  .dockerconfigjson: %s" % e64(json.dumps({"auths": {"registry.corp.net": {"auth": auth}}}))),
    "  # the public mirror needs no credentials",
    "  mirror.json: %s" % e64(json.dumps({"registry-mirrors": ["https://mirror.corp.net"], "insecure-registries": []})),
)
add("scripts/bootstrap.sh",
    "#!/bin/sh",
    "# bootstrap a build agent",
    "set -eu",
    S("stripe-secret-key", "export STRIPE=$(echo %s | base64 -d)" % e64("sk_live_" + r(AN, 32))),
    S("mongodb-url-password", "echo '%s' | base64 --decode > /etc/app/mongo.url" % e64("mongodb+srv://ops:%s@cluster0.corp.net/app" % r(AN, 16))),
    S("npm-access-token", "echo %s | base64 -d > ~/.npmrc" % e64("//registry.npmjs.org/:_authToken=npm_%s\n" % r(AN, 36))),
    "echo %s | base64 -d > /etc/motd" % e64("Welcome to the build agent. Builds run as user ci; logs go to /var/log/ci.\n"),
    "echo %s | base64 -d > /tmp/seed.bin" % b64(64),
    "echo %s | base64 -d >> ~/.ssh/known_hosts" % e64("github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n"),
    "echo %s | base64 -d | tar -xz -C /opt" % b64(120),
)
add("k8s/notify-secret.json",
    "{",
    '  "apiVersion": "v1",',
    '  "kind": "Secret",',
    '  "metadata": { "name": "notify" },',
    '  "data": {',
    S("slack-bot-token", '    "SLACK": "%s",' % e64("xoxb-%s-%s-%s" % (r("0123456789", 12), r("0123456789", 13), r(AN, 24)))),
    S("sendgrid-api-key", '    "MAIL": "%s",' % e64("SG.%s.%s" % (r(URL, 22), r(URL, 43)))),
    S("gitlab-pat", '    "GITLAB": "%s",' % e64("glpat-%s" % r(URL, 20))),
    '    "TEMPLATE": "%s",' % e64("Hello {{name}}, your invoice {{number}} is ready."),
    '    "CHANNELS": "%s",' % e64(json.dumps(["#billing", "#ops-alerts", "#deploys"])),
    '    "SIGNATURE": "%s"' % b64(32),
    "  }",
    "}",
)
add("deploy/secrets.tf",
    'resource "kubernetes_secret" "ml" {',
    "  metadata { name = \"ml\" }",
    "  binary_data = {",
    S("openai-project-key", '    OPENAI = "%s"' % e64("sk-proj-" + r(URL, 64))),
    '    MODEL_CARD = "%s"' % e64("model: gpt-4o-mini\ntemperature: 0.2\nmax_tokens: 1024\n"),
    '    WEIGHTS_SHA = "%s"' % b64(32),
    "  }",
    "}",
)
add("web/dist/app.min.js",
    "!function(){var e=document.getElementById('root');e&&e.setAttribute('data-ready','1')}();",
    "//# sourceMappingURL=data:application/json;charset=utf-8;base64,%s" % e64(json.dumps({
        "version": 3, "file": "app.min.js", "sources": ["src/app.js"],
        "sourcesContent": ["const root = document.getElementById('root');\nif (root) root.setAttribute('data-ready', '1');\n"],
        "names": ["root", "document", "getElementById", "setAttribute"],
        "mappings": "AAAA,MAAMA,EAAOC,SAASC,eAAe,QACjCF,GAAMA,EAAKG,aAAa,aAAc"})),
)
add("web/packages.lock.json",
    "{",
    '  "dependencies": {',
    *['    "%s": { "version": "2.%d.1", "integrity": "sha512-%s==" },' % (n, R.randrange(9), r(B64, 86)) for n in ("axios", "zod", "dayjs", "qs")],
    '    "end": {}',
    "  }",
    "}",
)

# ---- write -----------------------------------------------------------------------------------------------
if os.path.isdir(OUT):
    shutil.rmtree(OUT)
labels = []
for path, lines in sorted(files.items()):
    lines = [l for l in lines if l[0] != "ENV_PLACEHOLDER"]
    full = os.path.join(OUT, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        for text, rule in lines:
            f.write(text + "\n")
    for i, (text, rule) in enumerate(lines, 1):
        if rule:
            labels.append((path, i, rule))
with open(os.path.join(HERE, "labels.tsv"), "w") as f:
    f.write("# file\tline\trule: planted (fake) secrets in tests/secrets/corpus/, written by gen_corpus.py\n")
    for p, l, rule in labels:
        f.write("%s\t%d\t%s\n" % (p, l, rule))
print("%d files, %d labels" % (len(files), len(labels)))
