#!/usr/bin/env python3
"""gen_config_corpus.py - a config-heavy corpus for the scanner benchmark.

    python3 bench/gen_config_corpus.py OUTDIR [MB]

Writes about MB megabytes (default 20) of configuration files into OUTDIR:
.env files, YAML, TOML, JSON, Kubernetes manifests (Deployments, ConfigMaps,
Secrets with base64 data), docker-compose files and terraform .tfvars, made of
realistic settings that are not secrets (ports, hosts, feature flags, image
tags, resource limits, digests, ids, URLs without passwords) with fake secrets
sprinkled in, about 1,000 a megabyte (one in ~1 KB of settings): provider tokens,
URLs with a password, generic assignments, short values, and base64-wrapped
values in Secrets. Deterministic (a fixed seed): the same bytes every run.
Every secret is random characters shaped like a format; none is real.
"""
import base64, os, random, string, sys

R = random.Random(20261124)
AN = string.ascii_letters + string.digits
LO = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
URL = AN + "_-"

def r(al, n):
    return "".join(R.choice(al) for _ in range(n))

def secret():
    """(name, value, wrap): a fake secret; wrap True = base64 it in a Secret's data"""
    k = R.randrange(16)
    if k == 0: return "GITHUB_TOKEN", "ghp_" + r(AN, 36), False
    if k == 1: return "AWS_ACCESS_KEY_ID", "AKIA" + r("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16), False
    if k == 2: return "STRIPE_SECRET_KEY", "sk_live_" + r(AN, 32), False
    if k == 3: return "SLACK_BOT_TOKEN", "xoxb-%s-%s-%s" % (r("0123456789", 12), r("0123456789", 13), r(AN, 24)), False
    if k == 4: return "GITLAB_TOKEN", "glpat-" + r(URL, 20), False
    if k == 5: return "SENDGRID_API_KEY", "SG.%s.%s" % (r(URL, 22), r(URL, 43)), False
    if k == 6: return "NPM_TOKEN", "npm_" + r(AN, 36), False
    if k == 7: return "DATABASE_URL", "postgres://app:%s@db-%d.internal:5432/app" % (r(AN, 18), R.randrange(9)), False
    if k == 8: return "REDIS_URL", "redis://:%s@cache.internal:6379/0" % r(AN, 20), False
    if k == 9: return "SECRET_KEY", r(AN + "!@#%^*-_", 40), False
    if k == 10: return "API_TOKEN", r(AN, 32), False
    if k == 11: return "SESSION_SECRET", r(AN, R.randrange(12, 16)), False
    if k == 12: return "DB_PASSWORD", r(AN + "!#%", 20), False
    if k == 13: return "DATABASE_URL", "postgres://svc:%s@db.prod.internal/app" % r(AN, 18), True
    if k == 14: return "GITHUB_TOKEN", "ghp_" + r(AN, 36), True
    return "OPENAI_API_KEY", "sk-proj-" + r(URL, 64), False

NAMES = ["billing", "orders", "catalog", "search", "auth", "gateway", "notifier", "reports", "ledger", "inventory",
         "checkout", "profile", "media", "audit", "scheduler"]
REGIONS = ["eu-west-1", "us-east-1", "ap-southeast-2", "eu-central-1"]

def plain():
    """(key, value) of an ordinary, non-secret setting"""
    k = R.randrange(14)
    n = R.choice(NAMES)
    if k == 0: return "PORT", str(R.choice([80, 443, 3000, 5432, 6379, 8080, 8443, 9090]))
    if k == 1: return "LOG_LEVEL", R.choice(["debug", "info", "warn", "error"])
    if k == 2: return "%s_HOST" % n.upper(), "%s.%s.svc.cluster.local" % (n, R.choice(["prod", "staging"]))
    if k == 3: return "FEATURE_%s" % r(string.ascii_uppercase, 6), R.choice(["true", "false"])
    if k == 4: return "REGION", R.choice(REGIONS)
    if k == 5: return "IMAGE", "registry.corp.net/%s:%d.%d.%d" % (n, R.randrange(5), R.randrange(30), R.randrange(99))
    if k == 6: return "TIMEOUT_MS", str(R.randrange(100, 60000))
    if k == 7: return "MAX_CONNECTIONS", str(R.randrange(1, 500))
    if k == 8: return "UPSTREAM_URL", "https://%s.corp.net/api/v%d" % (n, R.randrange(1, 4))
    if k == 9: return "COMMIT_SHA", r(HEX, 40)
    if k == 10: return "REQUEST_ID_HEADER", "X-Request-Id"
    if k == 11: return "CACHE_TTL", "%ds" % R.randrange(1, 3600)
    if k == 12: return "TRACE_SAMPLE_RATE", "0.%d" % R.randrange(1, 99)
    return "DEPLOY_ID", "%s-%s-%s" % (r(HEX, 8), r(HEX, 4), r(HEX, 12))

def lower(k):
    return k.lower()

def env_file(lines, per):
    for _ in range(per):
        for _ in range(R.randrange(24, 36)):
            k, v = plain()
            lines.append("%s=%s" % (k, v))
        k, v, _w = secret()
        lines.append("%s=%s" % (k, v))

def yaml_file(lines, per):
    lines += ["service:", "  name: %s" % R.choice(NAMES), "  settings:"]
    for _ in range(per):
        for _ in range(R.randrange(24, 36)):
            k, v = plain()
            lines.append("    %s: %s" % (lower(k), v))
        k, v, _w = secret()
        lines.append("    %s: \"%s\"" % (lower(k), v))

def toml_file(lines, per):
    for i in range(per):
        lines.append("[%s_%d]" % (R.choice(NAMES), i))
        for _ in range(R.randrange(24, 36)):
            k, v = plain()
            lines.append('%s = "%s"' % (lower(k), v))
        k, v, _w = secret()
        lines.append('%s = "%s"' % (lower(k), v))
        lines.append("")

def json_file(lines, per):
    lines.append("{")
    for i in range(per):
        lines.append('  "%s_%d": {' % (R.choice(NAMES), i))
        for _ in range(R.randrange(24, 36)):
            k, v = plain()
            lines.append('    "%s": "%s",' % (lower(k), v))
        k, v, _w = secret()
        lines.append('    "%s": "%s"' % (lower(k), v))
        lines.append("  },")
    lines.append('  "version": 1')
    lines.append("}")

def k8s_file(lines, per):
    for i in range(per):
        n = R.choice(NAMES)
        lines += ["---", "apiVersion: apps/v1", "kind: Deployment", "metadata:", "  name: %s-%d" % (n, i),
                  "  labels:", "    app: %s" % n, "spec:", "  replicas: %d" % R.randrange(1, 6), "  template:",
                  "    spec:", "      containers:", "        - name: %s" % n, "          image: registry.corp.net/%s:1.%d.0" % (n, R.randrange(40)),
                  "          resources:", "            limits: { cpu: 500m, memory: 512Mi }", "          env:"]
        for _ in range(R.randrange(5, 10)):
            k, v = plain()
            lines += ["            - name: %s" % k, "              value: \"%s\"" % v]
        k, v, wrap = secret()
        lines += ["---", "apiVersion: v1", "kind: Secret", "metadata:", "  name: %s-%d" % (n, i), "type: Opaque", "data:"]
        lines.append("  LOG_FORMAT: %s" % base64.b64encode(b"json").decode())
        if wrap:
            lines.append("  %s: %s" % (k, base64.b64encode(v.encode()).decode()))
        else:
            lines += ["stringData:", "  %s: \"%s\"" % (k, v)]

def compose_file(lines, per):
    lines += ["services:"]
    for i in range(per):
        n = R.choice(NAMES)
        lines += ["  %s%d:" % (n, i), "    image: registry.corp.net/%s:2.%d" % (n, R.randrange(20)), "    restart: unless-stopped",
                  "    ports: [\"%d:%d\"]" % (R.randrange(3000, 9000), 8080), "    environment:"]
        for _ in range(R.randrange(15, 24)):
            k, v = plain()
            lines.append("      %s: \"%s\"" % (k, v))
        k, v, _w = secret()
        lines.append("      %s: \"%s\"" % (k, v))

def tfvars_file(lines, per):
    for i in range(per):
        for _ in range(R.randrange(24, 36)):
            k, v = plain()
            lines.append('%s = "%s"' % (lower(k), v))
        k, v, _w = secret()
        lines.append('%s = "%s"' % (lower(k), v))

KINDS = [(".env", env_file), (".yaml", yaml_file), (".toml", toml_file), (".json", json_file),
         ("-k8s.yaml", k8s_file), ("-compose.yml", compose_file), (".tfvars", tfvars_file)]

def main():
    out = sys.argv[1]
    mb = float(sys.argv[2]) if len(sys.argv) > 2 else 20
    os.makedirs(out, exist_ok=True)
    total = secrets = i = 0
    while total < mb * 1e6:
        ext, fn = KINDS[i % len(KINDS)]
        lines = []
        fn(lines, R.randrange(4, 24))
        text = "\n".join(lines) + "\n"
        d = os.path.join(out, "svc%03d" % (i // 100))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "%s%05d%s" % (R.choice(NAMES), i, ext)), "w") as f:
            f.write(text)
        total += len(text)
        i += 1
    print("%d files, %.1f MB" % (i, total / 1e6))

main()
