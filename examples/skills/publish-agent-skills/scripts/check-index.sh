#!/usr/bin/env bash
# Checks a site's Agent Skills index: shape, content types, and every digest against the bytes
# served. Prints one line per check and exits 1 if any check failed.
# Usage: check-index.sh https://example.com
set -euo pipefail

origin="${1:?usage: check-index.sh ORIGIN (such as https://example.com)}"
origin="${origin%/}"
index_url="$origin/.well-known/agent-skills/index.json"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

ok() { printf 'ok    %s\n' "$1"; }
fail() { printf 'FAIL  %s\n' "$1"; failures=$((failures + 1)); }

sha256() {
  if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

status=$(curl -sS -o "$work/index.json" -w '%{http_code} %{content_type}' "$index_url")
case "$status" in
  "200 application/json"*) ok "index: 200 application/json" ;;
  *) fail "index: expected 200 application/json, got $status"; exit 1 ;;
esac

python3 - "$work/index.json" >"$work/entries" <<'PY' || { fail "index: not a 0.2.0 index"; exit 1; }
import json, re, sys
index = json.load(open(sys.argv[1]))
if index.get("$schema") != "https://schemas.agentskills.io/discovery/0.2.0/schema.json":
    sys.exit(1)
for entry in index.get("skills", []):
    fields = [entry.get(key, "") for key in ("name", "type", "url", "digest")]
    valid = re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", fields[0]) and len(fields[0]) <= 64
    print("\t".join(fields + ["valid" if valid else "bad-name"]))
PY
ok "index: \$schema is 0.2.0"

while IFS=$'\t' read -r name type url digest valid; do
  [ "$valid" = valid ] || fail "$name: the name breaks the naming rules"
  case "$url" in
    http://*|https://*) artifact_url="$url" ;;
    /*) artifact_url="$origin$url" ;;
    *) artifact_url="$origin/.well-known/agent-skills/$url" ;;
  esac
  code=$(curl -sS -o "$work/artifact" -w '%{http_code}' "$artifact_url")
  if [ "$code" != 200 ]; then fail "$name: $artifact_url answered $code"; continue; fi
  actual="sha256:$(sha256 "$work/artifact")"
  if [ "$actual" = "$digest" ]; then
    ok "$name ($type): digest matches"
  else
    fail "$name ($type): index says $digest, served bytes are $actual"
  fi
done <"$work/entries"

missing=$(curl -sS -o /dev/null -w '%{http_code}' "$origin/.well-known/agent-skills/no-such-skill-$$/SKILL.md")
if [ "$missing" = 404 ]; then ok "unknown skill: 404"; else fail "unknown skill: expected 404, got $missing"; fi

if [ "$failures" -gt 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "all checks passed"
