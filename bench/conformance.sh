#!/usr/bin/env bash
# MCP protocol conformance of the built stdio server (dist/bin.js), run by `npm run conformance`.
#
# The conformance tool (@modelcontextprotocol/conformance, pinned) tests servers over
# Streamable HTTP only, so the stdio server is bridged with supergateway (pinned) on a
# free 127.0.0.1 port. supergateway has no bind-address option, so a small preload makes
# its listen() bind 127.0.0.1 instead of every interface; the script checks that with ss,
# and checks that initialize was answered by parallel-llm-server, not by the bridge.
#
# Only the scenarios that apply to this server are run: APPLICABLE below. Every
# other scenario the tool offers is listed, with a reason, in bench/conformance-baseline.yml;
# the script fails if the two lists do not cover the tool's scenarios exactly.
#
# The server gets a dummy OpenRouter key and an unreachable loopback base URL: none of these
# scenarios calls process_prompt, and if one ever did it must not reach the network.
#
# Exit status: 0 when every applicable scenario passes; 1 otherwise (or on a setup error).
# Environment: CONFORMANCE_PORT (default: a free port), CONFORMANCE_KEEP=1 keeps the
# temporary directory (results, bridge log); it is kept anyway when a run with a bridge fails.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BASELINE="$ROOT/bench/conformance-baseline.yml"
ENTRY="$ROOT/dist/bin.js"
CONFORMANCE_PKG='@modelcontextprotocol/conformance@0.1.16'
BRIDGE_PKG='supergateway@4.0.0'
APPLICABLE=(server-initialize ping tools-list resources-list)
NODE_BIN="$(command -v node)" # the project's Node (20) runs the server and the bridge
export npm_config_loglevel=error # keep npx quiet (engine and config warnings)

log() { printf '[conformance] %s\n' "$*"; }
die() { printf '[conformance] error: %s\n' "$*" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/parallel-llm-conformance.XXXXXX")"
BRIDGE_PID=''
KEEP="${CONFORMANCE_KEEP:-0}"

cleanup() {
  local rc=$? children='' child
  trap - EXIT INT TERM
  if [[ -n "$BRIDGE_PID" ]] && kill -0 "$BRIDGE_PID" 2>/dev/null; then
    # supergateway starts each session's server in its own process group and stops them
    # on SIGTERM; remember them in case it has to be killed outright.
    children="$(pgrep -P "$BRIDGE_PID" || true)"
    kill -TERM "$BRIDGE_PID" 2>/dev/null || true
    for _ in $(seq 1 80); do kill -0 "$BRIDGE_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$BRIDGE_PID" 2>/dev/null || true
    wait "$BRIDGE_PID" 2>/dev/null || true
    for child in $children; do
      kill -0 -- "-$child" 2>/dev/null && kill -KILL -- "-$child" 2>/dev/null || true
    done
  fi
  exec 3>&-
  if [[ "$KEEP" == 1 || ( "$rc" -ne 0 && -e "$WORK/bridge.log" ) ]]; then
    log "kept $WORK (results/, bridge.log)"
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

conformance() {
  timeout -k 10 300 npx -y -p node@22 -p "$CONFORMANCE_PKG" conformance "$@"
}

# --- 1. The scenarios: applicable + baseline must be exactly what the tool offers. -------------
[[ -f "$ENTRY" ]] || { log "dist/bin.js missing; building"; (cd "$ROOT" && npm run build >/dev/null); }
[[ -f "$BASELINE" ]] || die "missing $BASELINE"

mapfile -t OFFERED < <(conformance list --server | sed -n 's/^  - \([^ ]*\).*/\1/p')
[[ "${#OFFERED[@]}" -gt 0 ]] || die "could not list the scenarios of $CONFORMANCE_PKG"
# Entries of the top-level `server:` list, and any of them without a `# reason`.
mapfile -t BASELINED < <(awk '/^[^ #-]/ { in_server = ($1 == "server:") } in_server && /^[ ]*- / { sub(/^[ ]*- */, ""); sub(/[ #].*/, ""); print }' "$BASELINE")
mapfile -t UNREASONED < <(awk '/^[^ #-]/ { in_server = ($1 == "server:") } in_server && /^[ ]*- / && !/ # [^ ]/ { print }' "$BASELINE")

problems=()
contains() { local x="$1"; shift; local y; for y in "$@"; do [[ "$x" == "$y" ]] && return 0; done; return 1; }
for s in "${OFFERED[@]}"; do
  if contains "$s" "${APPLICABLE[@]}"; then
    contains "$s" "${BASELINED[@]}" && problems+=("$s is applicable but also in the baseline (a failure would be hidden)")
  elif ! contains "$s" "${BASELINED[@]}"; then
    problems+=("$s is offered by the tool but neither applicable nor in the baseline")
  fi
done
for s in "${APPLICABLE[@]}" "${BASELINED[@]}"; do
  contains "$s" "${OFFERED[@]}" || problems+=("$s is not a server scenario of $CONFORMANCE_PKG")
done
for line in "${UNREASONED[@]}"; do problems+=("baseline entry without a '# reason': $line"); done
if [[ "${#problems[@]}" -gt 0 ]]; then
  printf '[conformance] scenario lists do not match:\n' >&2
  printf '  - %s\n' "${problems[@]}" >&2
  exit 1
fi
log "$CONFORMANCE_PKG offers ${#OFFERED[@]} server scenarios: running ${#APPLICABLE[@]} (${APPLICABLE[*]}), ${#BASELINED[@]} not applicable (see bench/conformance-baseline.yml)"

# --- 2. The bridge: stdio server -> Streamable HTTP on 127.0.0.1. -------------------------------
PORT="${CONFORMANCE_PORT:-$("$NODE_BIN" -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')}"
URL="http://127.0.0.1:$PORT/mcp"
BRIDGE_BIN="$(npx -y -p "$BRIDGE_PKG" -c 'command -v supergateway')"
[[ -x "$BRIDGE_BIN" ]] || die "could not install $BRIDGE_PKG"

cat >"$WORK/loopback.mjs" <<'EOF'
// listen(port) binds every interface; make a port-only listen() bind the loopback address.
import net from 'node:net';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const portOnly = typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]));
  if (portOnly && typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
  return listen.apply(this, args);
};
EOF
# supergateway exits when its stdin closes; a FIFO held open read-write keeps it open.
mkfifo "$WORK/stdin"
exec 3<>"$WORK/stdin"
SERVER_CMD="$(printf '%q %q' "$NODE_BIN" "$ENTRY")"
(
  cd "$WORK"
  exec env -i PATH="$PATH" HOME="${HOME:-$WORK}" \
    OPENROUTER_API_KEY=conformance-dummy-key \
    OPENROUTER_BASE_URL=http://127.0.0.1:9/api/v1 \
    PARALLEL_LLM_SAVE_OUTPUTS=false \
    PARALLEL_LLM_LOG_LEVEL=warn \
    "$NODE_BIN" --import "file://$WORK/loopback.mjs" "$BRIDGE_BIN" \
    --stdio "$SERVER_CMD" --outputTransport streamableHttp --stateful \
    --port "$PORT" --streamableHttpPath /mcp --healthEndpoint /healthz --logLevel info
) <&3 >"$WORK/bridge.log" 2>&1 &
BRIDGE_PID=$!

for _ in $(seq 1 150); do
  kill -0 "$BRIDGE_PID" 2>/dev/null || { tail -n 20 "$WORK/bridge.log" >&2; die "the bridge exited during start-up"; }
  [[ "$(curl -fsS --max-time 2 "http://127.0.0.1:$PORT/healthz" 2>/dev/null)" == ok ]] && break
  sleep 0.2
done
[[ "$(curl -fsS --max-time 2 "http://127.0.0.1:$PORT/healthz" 2>/dev/null)" == ok ]] || die "the bridge did not answer on 127.0.0.1:$PORT within 30 s"
if command -v ss >/dev/null; then
  bound="$(ss -Hltn "sport = :$PORT" | awk '{ print $4 }' | sort -u | tr '\n' ' ')"
  [[ "$bound" == "127.0.0.1:$PORT " ]] || die "the bridge listens on '$bound', not only on 127.0.0.1:$PORT"
fi
log "bridge $BRIDGE_PKG (pid $BRIDGE_PID) answers on $URL for: node dist/bin.js"

# --- 3. The applicable scenarios. -------------------------------------------------------------
declare -A RC
for s in "${APPLICABLE[@]}"; do
  log "scenario $s"
  set +e
  conformance server --url "$URL" --scenario "$s" --expected-failures "$BASELINE" -o "$WORK/results"
  RC[$s]=$?
  set -e
done

# --- 4. Summary, from the tool's exit codes and its checks.json files. ------------------------
failed=0
printf '\n[conformance] summary (%s against parallel-llm-server over %s)\n' "$CONFORMANCE_PKG" "$BRIDGE_PKG"
for s in "${APPLICABLE[@]}"; do
  file="$(ls -d "$WORK/results/server-$s-"*/checks.json 2>/dev/null | tail -n 1 || true)"
  counts='no checks.json'
  ok=0
  if [[ -n "$file" ]]; then
    counts="$("$NODE_BIN" -e '
      const checks = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      const n = (s) => checks.filter((c) => c.status === s).length;
      const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
      console.log(`${n("SUCCESS")}/${checks.length} checks passed, ${n("FAILURE")} failed, ${n("WARNING")} warnings` +
        bad.map((c) => `\n      ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`).join(""));
      process.exit(checks.length > 0 && bad.length === 0 ? 0 : 1);
    ' "$file")" && ok=1
  fi
  if [[ "${RC[$s]}" -eq 0 && "$ok" -eq 1 ]]; then
    printf '  PASS  %-20s %s\n' "$s" "$counts"
  else
    printf '  FAIL  %-20s %s (exit %s)\n' "$s" "$counts" "${RC[$s]}"
    failed=$((failed + 1))
  fi
done
printf '  n/a   %d scenarios listed in bench/conformance-baseline.yml\n' "${#BASELINED[@]}"
# The answers must have come from this server through the bridge, not from the bridge itself.
served="$(grep -o '"serverInfo":{"name":"[^"]*","version":"[^"]*"' "$WORK/bridge.log" | sort -u | sed 's/.*"name":"\([^"]*\)","version":"\([^"]*\)"/\1 \2/' || true)"
tools="$(cat "$WORK"/results/server-tools-list-*/checks.json 2>/dev/null | "$NODE_BIN" -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => { try { console.log(JSON.parse(s)[0].details.tools.join(" ")); } catch {} });' || true)"
printf '  initialize answered by: %s; tools listed: %s\n' "${served:-nobody}" "${tools:-none}"
if [[ "$served" != "parallel-llm-server "* || "$served" == *$'\n'* ]]; then
  printf '[conformance] initialize was not answered by parallel-llm-server (alone) through the bridge\n' >&2
  wrong_server=1
fi
printf '[conformance] %d/%d applicable scenarios passed in %ds\n' "$(( ${#APPLICABLE[@]} - failed ))" "${#APPLICABLE[@]}" "$SECONDS"
if [[ "$failed" -gt 0 || "${wrong_server:-0}" -eq 1 ]]; then
  printf '[conformance] bridge log (last 20 lines):\n' >&2
  tail -n 20 "$WORK/bridge.log" >&2
  exit 1
fi
