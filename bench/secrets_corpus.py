#!/usr/bin/env python3
"""secrets_corpus.py — a labelled corpus of the secret forms the scanner
missed before (issue 38, V7), with fresh random fake secrets each run, and
hard benign files beside them; and the score of a scanner's findings on it.

  secrets_corpus.py gen DIR [--files N] [--seed S]
      writes DIR/files/<form>/*.<ext> (each file plants secrets of one form,
      in several file kinds and languages), DIR/files/benign/*.<ext> (texts that look
      like secrets and are not: code reading the environment, placeholders,
      ${VAR}, <password>, hashes, UUIDs, test vectors, C macros and shell
      commands continued with a backslash, joined lists of words, signed-off
      templates) and DIR/labels.tsv: path<TAB>line<TAB>form<TAB>pieces of
      every planted secret (the line its first piece is on; the pieces of a
      split secret, space-separated). N files a form (default 40).
  secrets_corpus.py score DIR FINDINGS
      FINDINGS: path<TAB>line<TAB>rule<TAB>start<TAB>end lines
      (memgate-scanbench --findings on DIR/files, paths relative to it). A secret is
      found when every piece of it lies inside a finding's byte range (a
      finding on its line that leaves a piece out does not count); a
      finding on an unlabelled line is a false positive, charged to the form
      of its file (benign files: "benign"). Prints one key-value line a form: form, secrets,
      found, missed, false positives, recall, precision; then "all".

Nothing here is a real secret: every value is drawn from os.urandom (or the
seed) when the corpus is made, in the formats the rules know.
"""
import base64
import json
import os
import random
import string
import sys

FORMS = ["aws_split", "odbc_pwd", "jwt_unsigned", "short_kv", "shell_continuation", "joined_list",
         "twilio_secret", "k8s_base64"]
AN = string.ascii_letters + string.digits
B64 = AN + "+/"


class Corpus:
    def __init__(self, root, rnd):
        self.root, self.r, self.labels = root, rnd, []

    def s(self, n, al=AN):
        return "".join(self.r.choice(al) for _ in range(n))

    def write(self, rel, lines, marks):
        """lines: the file's lines; marks: (0-based line, form, pieces) of its secrets."""
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        for ln, form, pieces in marks:
            self.labels.append((rel, ln + 1, form, pieces))

    # ---- fake secrets in the formats the rules know ----
    def aws_id(self):
        return "AKIA" + self.s(16, string.ascii_uppercase + "234567")

    def aws_secret(self):
        while True:
            v = self.s(40, B64)
            if not v.startswith("/"):
                return v

    def token(self):
        k = self.r.randrange(5)
        if k == 0:
            return "ghp_" + self.s(36)
        if k == 1:
            return "glpat-" + self.s(20, AN + "_-")
        if k == 2:
            return "npm_" + self.s(36)
        if k == 3:
            return "sk_live_" + self.s(24 + self.r.randrange(20))
        return "xoxb-" + "-".join(self.s(12, string.digits) for _ in range(2)) + "-" + self.s(24)

    def short(self):
        """a short password or token: 5 to 11 characters, letters, digits, a few symbols"""
        al = AN + "!@*-_.+=?"
        while True:
            v = self.s(self.r.randrange(5, 12), al)
            if v[0] in AN and any(c.isdigit() for c in v) and any(c.isalpha() for c in v):
                return v

    def pick(self, *xs):
        return self.r.choice(xs)


def split3(v, r):
    a = r.randrange(4, len(v) // 2)
    b = r.randrange(a + 2, len(v) - 2)
    return v[:a], v[a:b], v[b:]


# ---- the forms ----

def aws_split(C, i):
    sec, kid = C.aws_secret(), C.aws_id()
    a, b, c = split3(sec, C.r)
    name = C.pick("AWS_SECRET_ACCESS_KEY", "aws_secret_access_key", "secretAccessKey", "awsSecretKey", "aws_secret_key")
    v = i % 7
    if v == 0:
        return "py", [f"# credentials for the nightly export", f'{name} = "{a}{b}" + "{c}"', "region = 'eu-west-1'"], [(1, [a + b, c])]
    if v == 1:
        return "c", ["/* signing test */", f'static const char *{name} = "{a}" "{b}" "{c}";', "int n = 3;"], [(1, [a, b, c])]
    if v == 2:
        return "py", [f"{name} = (", f'    "{a}"', f'    "{b}"', f'    "{c}"', ")"], [(1, [a, b, c])]
    if v == 3:
        return "js", [f"const {name} =", f'  "{a}" +', f'  "{b}" +', f'  "{c}";', "module.exports = {};"], [(1, [a, b, c])]
    if v == 4:
        return "go", ["package aws", "", "func creds() *credentials.Credentials {",
                      f'\treturn credentials.NewStaticCredentials("{kid}", "{a}{b}" + "{c}", "")', "}"], [(3, [kid, a + b, c])]
    if v == 5:
        return "rb", [f"Aws.config.update(access_key_id: '{kid}',", f"  {name}: '{a}' + '{b}' + '{c}')"], [(0, [kid]), (1, [a, b, c])]
    return "java", ["class Creds {", f'    static final String {name.upper()} = "{a}" + "{b}"', f'        + "{c}";', "}"], [(1, [a, b, c])]


def odbc_pwd(C, i):
    pw = C.short() if i % 2 else C.s(C.r.randrange(10, 20), AN + "!*-_")
    drv = C.pick("{ODBC Driver 18 for SQL Server}", "{PostgreSQL Unicode}", "{MySQL ODBC 8.0 Unicode Driver}", "SQL Server")
    key = C.pick("Pwd", "PWD", "pwd", "Password")
    v = i % 5
    if v == 0:
        return "cs", ["using System.Data.Odbc;", f'var cs = "Driver={drv};Server=db{i}.corp;Database=app;Uid=svc;{key}={pw};";',
                      "var conn = new OdbcConnection(cs);"], [(1, [pw])]
    if v == 1:
        return "py", ["import pyodbc", f'conn = pyodbc.connect("DRIVER={drv};SERVER=sql{i};DATABASE=sales;UID=report;{key}={pw}")'], [(1, [pw])]
    if v == 2:
        return "ini", ["[ODBC Data Sources]", "sales = SQL Server", "", "[sales]",
                       f"ConnectionString=DSN=sales;UID=report;{key}={pw}"], [(4, [pw])]
    if v == 3:
        return "json", ["{", f'  "ConnectionStrings": {{"Main": "Server=tcp:sql{i}.corp,1433;Initial Catalog=app;User ID=app;{key}={{{pw}}};"}}',
                        "}"], [(1, [pw])]
    return "java", [f'String url = "jdbc:sqlserver://db{i}:1433;databaseName=app;user=svc;password={pw};encrypt=true";'], [(0, [pw])]


def jwt_unsigned(C, i):
    hdr = C.pick({"alg": "none"}, {"alg": "none", "typ": "JWT"}, {"typ": "JWT", "alg": "none"}, {"alg": "none", "kid": C.s(8)})
    body = {"sub": C.s(10), "iat": 1700000000 + C.r.randrange(10**7), "role": C.pick("admin", "user", "svc")}
    enc = lambda o: base64.urlsafe_b64encode(json.dumps(o, separators=(",", ":")).encode()).rstrip(b"=").decode()
    tok = enc(hdr) + "." + enc(body) + "."
    v = i % 4
    if v == 0:
        return "http", ["GET /api/v1/admin HTTP/1.1", "Host: api.internal", f"Authorization: Bearer {tok}", ""], [(2, [tok])]
    if v == 1:
        return "json", ["{", f'  "id_token": "{tok}",', '  "expires_in": 3600', "}"], [(1, [tok])]
    if v == 2:
        return "py", ["def test_admin(client):", f'    TOKEN = "{tok}"', '    assert client.get("/", headers={"Authorization": TOKEN})'], [(1, [tok])]
    return "sh", [f"curl -s https://api.internal/me -H 'Authorization: Bearer {tok}'"], [(0, [tok])]


def short_kv(C, i):
    keys = ["password", "passwd", "db_password", "DB_PASS", "token", "api_token", "secret", "client_secret", "pwd",
            "smtp.password", "api_key", "auth.token", "redis_pass", "admin_password"]
    v = i % 6
    k1, k2 = C.r.sample(keys, 2)
    p1, p2 = C.short(), C.short()
    if v == 0:
        return "ini", ["[database]", "host = db.internal", "port = 5432", f"{k1} = {p1}", "", "[mail]", f"{k2}={p2}"], [(3, [p1]), (6, [p2])]
    if v == 1:
        k1, k2 = "spring.datasource.password", C.pick("mail.smtp.password", "app.api.token", "ldap.bind.pwd")
        return "properties", ["spring.datasource.url=jdbc:postgresql://db:5432/app", "spring.datasource.username=app",
                              f"{k1}={p1}", f"{k2}: {p2}"], [(2, [p1]), (3, [p2])]
    if v == 2:
        return "toml", ["[server]", 'host = "0.0.0.0"', "", "[db]", f'{k1} = "{p1}"', f"{k2} = '{p2}'"], [(4, [p1]), (5, [p2])]
    if v == 3:
        return "yml", ["services:", "  db:", "    image: postgres:16", "    environment:", f"      POSTGRES_PASSWORD: {p1}",
                       f"      - MYSQL_ROOT_PASSWORD={p2}"], [(4, [p1]), (5, [p2])]
    if v == 4:
        return "env", ["APP_ENV=production", f"DB_PASSWORD={p1}", f'API_TOKEN="{p2}"'], [(1, [p1]), (2, [p2])]
    return "cfg", ["[client]", "user = backup", f"password = {p1}", f"{k2}: {p2}"], [(2, [p1]), (3, [p2])]


def shell_continuation(C, i):
    tok = C.token()
    cut = C.r.randrange(6, len(tok) - 4)
    a, b = tok[:cut], tok[cut:]
    v = i % 4
    if v == 0:
        return "sh", ["#!/bin/sh", f"export GH_TOKEN={a}\\", f"{b}", "gh release list"], [(1, [a, b])]
    if v == 1:
        return "sh", ["curl -fsS https://api.example.internal/v1/deploy \\", f'  -H "Authorization: Bearer {a}\\',
                      f'{b}" \\', "  -d @payload.json"], [(1, [a, b])]
    if v == 2:
        return "Dockerfile", ["FROM node:20", f"ENV NPM_TOKEN={a}\\", f"{b}", "RUN npm ci"], [(1, [a, b])]
    return "py", [f'TOKEN = "{a}\\', f'{b}"', "print(len(TOKEN))"], [(0, [a, b])]


def joined_list(C, i):
    tok = C.token()
    a, b, c = split3(tok, C.r)
    v = i % 4
    if v == 0:
        return "py", ["TOKEN = \"\".join([", f'    "{a}",', f'    "{b}",', f'    "{c}",', "])"], [(1, [a, b, c])]
    if v == 1:
        return "py", [f"key = ''.join(['{a}', '{b}', '{c}'])"], [(0, [a, b, c])]
    if v == 2:
        return "js", [f'const token = ["{a}", "{b}", "{c}"].join("");'], [(0, [a, b, c])]
    return "java", [f'String token = String.join("", "{a}", "{b}", "{c}");'], [(0, [a, b, c])]


def twilio_secret(C, i):
    sid, sec = "SK" + C.s(32, "0123456789abcdef"), C.s(32)
    v = i % 4
    if v == 0:
        return "env", [f"TWILIO_API_KEY={sid}", f"TWILIO_API_SECRET={sec}", "TWILIO_FROM=+15550001111"], [(0, [sid]), (1, [sec])]
    if v == 1:
        return "js", ["const twilio = require('twilio');", f"const client = twilio('{sid}', '{sec}', {{ accountSid }});"], [(1, [sid, sec])]
    if v == 2:
        return "py", ["from twilio.rest import Client", f'client = Client("{sid}", "{sec}", account_sid)'], [(1, [sid, sec])]
    return "json", ["{", f'  "apiKey": "{sid}",', f'  "apiSecret": "{sec}"', "}"], [(1, [sid]), (2, [sec])]


def k8s_base64(C, i):
    b = lambda t: base64.b64encode(t.encode()).decode()
    names = ["password", "DB_PASSWORD", "api-token", "TOKEN", "DATABASE_URL", "GH_RELEASES", "smtp", "credentials"]
    lines = ["apiVersion: v1", "kind: Secret", "metadata:", f"  name: app-{i}", "type: Opaque", "data:"]
    marks = []
    for n in C.r.sample(names, 3):
        if n in ("DATABASE_URL", "smtp", "credentials"):
            val = C.pick(f"postgres://app:{C.s(14)}@db.internal:5432/app", f"mysql://root:{C.s(12)}@mysql:3306/x",
                         json.dumps({"password": C.s(12)}), f"redis://:{C.s(16)}@cache:6379/0")
        elif n == "GH_RELEASES":
            val = C.token()
        else:
            val = C.s(C.r.randrange(12, 28))
        marks.append((len(lines), [b(val)]))
        lines.append(f"  {n}: {b(val)}")
    lines.append(f"  username: {b('app')}")
    return "yaml", lines, marks


GENS = {"aws_split": aws_split, "odbc_pwd": odbc_pwd, "jwt_unsigned": jwt_unsigned, "short_kv": short_kv,
        "shell_continuation": shell_continuation, "joined_list": joined_list, "twilio_secret": twilio_secret,
        "k8s_base64": k8s_base64}


# ---- hard benign texts: each a file that must give no finding ----

def benign(C, i):
    h = lambda n: C.s(n, "0123456789abcdef")
    uuid = f"{h(8)}-{h(4)}-4{h(3)}-a{h(3)}-{h(12)}"
    b = lambda t: base64.b64encode(t.encode()).decode()
    kinds = [
        ("py", ["import os", 'password = os.getenv("DB_PASSWORD")', 'token = os.environ["API_TOKEN"]',
                "secret = settings.SECRET_KEY", "if not password:", '    raise SystemExit("set DB_PASSWORD")']),
        ("java", ['String pwd = System.getenv("DB_PWD");', 'String token = props.getProperty("api.token");',
                  'conn = DriverManager.getConnection(url, user, pwd);']),
        ("js", ["const token = process.env.API_TOKEN;", "const password = config.get('db.password');",
                'const apiKey = await vault.read("secret/data/api");']),
        ("ini", ["[database]", "password = changeme", "token = ${API_TOKEN}", "secret = <secret>", "api_key =",
                 "passwd = ****", "password_min_length = 12", "token_ttl = 3600", "token_type = Bearer",
                 "secret_backend = vault", "pass_through = true"]),
        ("properties", ["spring.datasource.password=${DB_PASSWORD}", "app.token=${TOKEN:}", "mail.smtp.password=<password>",
                        "security.password.min-length=12", "app.token.expiry=30m", "ldap.pwd=changeit"]),
        ("toml", ['[db]', 'password = "{{ db_password }}"', 'token = ""', f'token_sha256 = "{h(64)}"', f'secret_id = "{uuid}"',
                  'password_file = "/run/secrets/db_password"']),
        ("yml", ["services:", "  db:", "    environment:", "      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}",
                 "      POSTGRES_PASSWORD_FILE: /run/secrets/db_password", "      - API_TOKEN=${API_TOKEN:?set it}",
                 "    secrets:", "      - db_password"]),
        ("env", ["DB_PASSWORD=", "API_TOKEN=your-token-here", "SECRET_KEY=${SECRET_KEY}", "TOKEN_URL=https://auth.example.com/token",
                 f"TOKEN={uuid}", f"SECRET={h(40)}"]),
        ("c", ["#define COPY_TOKEN(dst, src) \\", "\tdo { memcpy((dst), (src), TOKEN_LEN); \\", "\t} while (0)",
               "static const char *k = \"abc\" \"def\";", f'static const char sha[] = "{h(20)}" "{h(20)}";']),
        ("sh", ["docker run --rm \\", "  -e API_TOKEN=$API_TOKEN \\", "  -e DB_PASSWORD \\", "  app:latest",
                "make CFLAGS=-O2\\", "  all"]),
        ("py", ['header = ", ".join(["alpha", "beta", "gamma"])', 'path = "/".join(["usr", "share", "doc"])',
                'tag = "".join(["<", name, ">"])', "KEYS = [\"id\", \"name\", \"token_type\"]"]),
        ("cs", ['var cs = "Driver={ODBC Driver 18 for SQL Server};Server=db;Database=app;Trusted_Connection=yes;";',
                'var fmt = "DSN=sales;UID={0};PWD={1}";', 'var q = "Server=db;User Id=app;Password=%s;";',
                'var t = $"Server=db;Uid={user};Pwd={password};";']),
        ("md", ["# Tokens", "", "An unsigned JWT has `\"alg\": \"none\"` and an empty signature; never accept one.",
                "Set `TWILIO_API_SECRET=your_api_secret` and `TWILIO_API_KEY=SKxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`.",
                f"The SKU is SKU{h(6)}; order {uuid}.", "Example: `AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`."]),
        ("yaml", ["apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: app", "data:", f"  LOG_LEVEL: {b('info')}",
                  f"  host: {b('db.internal')}", f"  port: {b('5432')}", f"  username: {b('admin')}"]),
        ("txt", ["test vectors (FIPS 180-2):",
                 "sha256(abc) = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                 f"key = {h(32)}", f"iv = {h(32)}", f"token: {uuid}", f"checksum: sha256:{h(64)}"]),
        ("go", ['token := os.Getenv("GITHUB_TOKEN")', 'password := flag.String("password", "", "the password")',
                'secret, err := os.ReadFile("/run/secrets/api")', 'sep := strings.Join([]string{"a", "b"}, ",")']),
    ]
    return kinds[i % len(kinds)]


def gen(root, nfiles, seed):
    r = random.Random(seed)
    C = Corpus(os.path.join(root, "files"), r)
    exts = {}
    for form in FORMS:
        for i in range(nfiles):
            ext, lines, marks = GENS[form](C, i)
            name = f"{form}/f{i:03d}" + ("" if ext == "Dockerfile" else "." + ext)
            if ext == "Dockerfile":
                name = f"{form}/f{i:03d}/Dockerfile"
            C.write(name, lines, [(ln, form, pieces) for ln, pieces in marks])
            exts[ext] = 1
    for i in range(nfiles * 4):
        ext, lines = benign(C, i)
        C.write(f"benign/b{i:03d}.{ext}", lines, [])
    with open(os.path.join(root, "labels.tsv"), "w") as f:
        f.write("# path\tline\tform\tpieces (bench/secrets_corpus.py; fake secrets, made fresh)\n")
        for p, ln, form, pieces in C.labels:
            f.write(f"{p}\t{ln}\t{form}\t{' '.join(pieces)}\n")
    print(f"files {nfiles * len(FORMS) + nfiles * 4}\nsecrets {len(C.labels)}\nforms {len(FORMS)}\nfile_kinds {len(exts)}")


def score(root, findings):
    lab = {}
    with open(os.path.join(root, "labels.tsv")) as f:
        for line in f:
            if line.startswith("#"):
                continue
            p, ln, form, pieces = line.rstrip("\n").split("\t")
            lab[(p, int(ln))] = (form, pieces.split(" "))
    spans, fp = {}, {}
    with open(findings) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            k = (c[0].lstrip("./"), int(c[1]))
            spans.setdefault(k[0], []).append((int(c[3]), int(c[4])))
            if k not in lab:
                form = k[0].split("/")[0]
                fp[form] = fp.get(form, 0) + 1
                print(f"fp {k[0]}:{k[1]} {c[2]}", file=sys.stderr)
    found = set()
    for (p, ln), (form, pieces) in lab.items():
        # found: every piece of the secret, from its labelled line on, inside one finding
        with open(os.path.join(root, "files", p), "rb") as fh:
            text = fh.read()
        at = 0
        for _ in range(ln - 1):
            at = text.index(b"\n", at) + 1
        ok = True
        for piece in pieces:
            o = text.find(piece.encode(), at)
            e = o + len(piece)
            if o < 0 or not any(a <= o and e <= b for a, b in spans.get(p, [])):
                ok = False
        if ok:
            found.add((p, ln))
    for form in FORMS + ["benign", "all"]:
        keys = [k for k, v in lab.items() if form == "all" or v[0] == form]
        tp = sum(1 for k in keys if k in found)
        nfp = sum(fp.values()) if form == "all" else fp.get(form, 0)
        rec = tp / len(keys) if keys else 1.0
        prec = tp / (tp + nfp) if tp + nfp else (1.0 if not nfp else 0.0)
        print(f"{form} {len(keys)} {tp} {len(keys) - tp} {nfp} {rec:.3f} {prec:.3f}")
        if form != "all":
            for k in keys:
                if k not in found:
                    print(f"miss {k[0]}:{k[1]} {form}", file=sys.stderr)


def main(argv):
    if len(argv) >= 3 and argv[1] == "gen":
        n, seed = 40, int.from_bytes(os.urandom(8), "little")
        a = argv[3:]
        while a:
            if a[0] == "--files" and len(a) > 1:
                n = int(a[1])
            elif a[0] == "--seed" and len(a) > 1:
                seed = int(a[1])
            else:
                break
            a = a[2:]
        if a or not 1 <= n <= 10000:
            sys.exit(__doc__)
        gen(argv[2], n, seed)
    elif len(argv) == 4 and argv[1] == "score":
        score(argv[2], argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
