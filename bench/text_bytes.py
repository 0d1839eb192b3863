# text_bytes.py — bytes of MCP's content[0].text (mg_tools_text) against the old text, the result's
# compact JSON with reals to 6 significant digits, for typical calls (docs/benchmarks.md#tool-result-text).
# Usage: python3 bench/text_bytes.py MEMGATE_HOME REPO_DIR (REPO_DIR indexed in MEMGATE_HOME; the memgate
# binary: $MEMGATE_BIN, default build/memgate). It stores 12 notes in the repo.
import json, subprocess, sys, os
if len(sys.argv) < 3 or not os.path.isdir(sys.argv[1]) or not os.path.isdir(sys.argv[2]):
    raise SystemExit("usage: python3 bench/text_bytes.py MEMGATE_HOME REPO_DIR (both directories; the top of this file says more)")
home=sys.argv[1]; cwd=sys.argv[2]
env = dict(os.environ, MEMGATE_HOME=home)
p = subprocess.Popen([os.environ.get('MEMGATE_BIN', os.path.abspath('build/memgate')), 'mcp', '--repo', '.'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True, cwd=cwd)
n=[0]
def rpc(method, params):
    n[0]+=1
    p.stdin.write(json.dumps({"jsonrpc":"2.0","id":n[0],"method":method,"params":params})+'\n'); p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get('id')==n[0]: return m
rpc("initialize",{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}})
p.stdin.write(json.dumps({"jsonrpc":"2.0","method":"notifications/initialized"})+'\n')
def r6(o):
    if isinstance(o,float):
        s='%.6g'%o
        return json.loads(s) if ('e' not in s) else o
    if isinstance(o,dict): return {k:r6(v) for k,v in o.items()}
    if isinstance(o,list): return [r6(v) for v in o]
    return o
for i in range(12):
    rpc("tools/call",{"name":"set_note","arguments":{"key":f"arch/decision-{i}","value":f"Decision {i}: the HTTP layer keeps one request context per call; see src/http/api.c and docs/http.md for why (number {i})."}})
calls=[("search_code",{"query":"parse cursor","limit":10}),
       ("search_code",{"query":"how does the gate redact secrets in results","limit":10}),
       ("search_code",{"query":"json_dumps\\(","mode":"regex","limit":10}),
       ("search_symbols",{"query":"mg_render","limit":20}),
       ("get_context",{"prompt":"where are tool results turned into MCP content blocks?"}),
       ("list_files",{"limit":100}),
       ("list_notes",{"limit":20}),
       ("read_file",{"path":"src/tools/args.h"}),
       ("list_repos",{}),
       ("index_status",{})]
print("| call | old text (JSON) bytes | new text bytes | new/old |")
print("| --- | ---: | ---: | ---: |")
for name,args in calls:
    r=rpc("tools/call",{"name":name,"arguments":args})['result']
    t=r['content'][0]['text']; sc=r.get('structuredContent')
    old=json.dumps(r6(sc),separators=(',',':'),ensure_ascii=False)
    a=len(old.encode()); b=len(t.encode())
    print(f"| `{name} {json.dumps(args)}` | {a} | {b} | {b/a:.2f} |")
    if os.environ.get('SHOW')==name: print(t)
p.stdin.close(); p.wait()
