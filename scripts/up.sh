#!/usr/bin/env bash
# The newcomer's command: brings the whole pipeline up on this machine and prints how to send a
# first lead.
#   bash scripts/up.sh        install what is missing (Node 24 too where the machine's node is older
#                             than 22.19), start the services and all roles, create a
#                             demo partner and agent, print credentials and a signed curl example
#   bash scripts/up.sh down   stop the roles and the services
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
RUN=.run
mkdir -p "$RUN"
PORT="${HTTP_PORT:-8080}"
BASE="http://127.0.0.1:$PORT"

stop_app() {
  if [[ -f $RUN/app.pid ]] && kill -0 "$(cat $RUN/app.pid)" 2>/dev/null; then
    kill "$(cat $RUN/app.pid)"
    for _ in $(seq 1 40); do kill -0 "$(cat $RUN/app.pid)" 2>/dev/null || break; sleep 0.25; done
  fi
  rm -f $RUN/app.pid
}

if [[ "${1:-}" == "down" ]]; then
  stop_app
  bash scripts/services.sh down
  exit 0
fi

source scripts/node.sh
bash scripts/node-modules.sh
bash scripts/services.sh up

# Local secrets, made once and kept out of git: the PII keyring, the lookup-hash key, a manager token.
if [[ ! -f .env.local ]]; then
  cat > .env.local <<ENV
ENCRYPTION_KEYS=k1:$(openssl rand -base64 32)
HASH_KEY=$(openssl rand -base64 32)
MANAGER_TOKENS=mgr_$(openssl rand -hex 32)
CALLBACK_ALLOW_HTTP=true
CALLBACK_ALLOW_PRIVATE_NETWORKS=true
ENV
fi
# A break-glass token needs 32 random bytes; one made shorter by an older up.sh is replaced.
if ! grep -Eq '^MANAGER_TOKENS=mgr_[0-9a-f]{64}$' .env.local; then
  sed -i "s/^MANAGER_TOKENS=.*/MANAGER_TOKENS=mgr_$(openssl rand -hex 32)/" .env.local
fi
set -a; source .env.local; eval "$(bash scripts/services.sh env)"; set +a
MANAGER_TOKEN="${MANAGER_TOKENS%%,*}"

# The manager console and the partner portal, built from src/console and src/portal/ui into
# dist/console and dist/portal-ui (well under a second), so the pages served match this checkout.
node scripts/build-console.mjs >/dev/null

stop_app
# Mail goes to the local Mailpit (SMTP_URL from services.sh env): links in it point at this address.
export CONSOLE_URL="${CONSOLE_URL:-$BASE}" MAIL_FROM="${MAIL_FROM:-LeadIntake <no-reply@localhost>}"
HTTP_HOST=127.0.0.1 HTTP_PORT="$PORT" nohup node --import tsx src/main.ts all >>"$RUN/app.log" 2>&1 </dev/null &
echo $! > "$RUN/app.pid"
for _ in $(seq 1 120); do
  [[ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/readyz")" == 200 ]] && break
  kill -0 "$(cat $RUN/app.pid)" 2>/dev/null || { echo "the service exited; see $RUN/app.log" >&2; tail -n 20 "$RUN/app.log" >&2; exit 1; }
  sleep 0.5
done
[[ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/readyz")" == 200 ]] || { echo "the service is not ready; see $RUN/app.log" >&2; exit 1; }

manager() { curl -sf -X "$1" "$BASE$2" -H "Authorization: Bearer $MANAGER_TOKEN" -H 'Content-Type: application/json' ${3:+-d "$3"}; }
partner=$(manager POST /api/affiliates '{"name":"Demo partner"}')
manager POST /api/agents '{"name":"Demo agent"}' >/dev/null
field() { node -e 'let o=JSON.parse(process.argv[1]); for (const k of process.argv[2].split(".")) o=o[k]; process.stdout.write(String(o))' "$1" "$2"; }
API_KEY=$(field "$partner" api_key); HMAC=$(field "$partner" hmac_secret); CALLBACK_SECRET=$(field "$partner" callback_secret); PARTNER_ID=$(field "$partner" id)

# The first owner: invited with the break-glass token; while nobody has set the account up, each run
# prints a fresh one-time link (the earlier ones still work until used or 24 h old).
OWNER_EMAIL="${OWNER_EMAIL:-owner@example.com}"
owner=$(manager GET /api/accounts | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const a=JSON.parse(s).items.find(x=>x.role==="owner");process.stdout.write(a?`${a.id} ${a.status}`:"")})')
if [[ -z "$owner" ]]; then
  invited=$(manager POST /api/accounts "{\"email\":\"$OWNER_EMAIL\",\"name\":\"Owner\",\"role\":\"owner\"}")
  OWNER_LINK="$BASE$(field "$invited" invitation.path)"
elif [[ "${owner#* }" == invited ]]; then
  OWNER_LINK="$BASE$(field "$(manager POST "/api/accounts/${owner%% *}/link")" path)"
fi

cat <<MSG

The pipeline runs at $BASE (all roles in one process; log: $RUN/app.log; stop: bash scripts/up.sh down).
Health: $BASE/readyz   Metrics: $BASE/metrics   OpenAPI: $BASE/api/openapi.json
Manager console: $BASE/console/   Partner portal: $BASE/portal/
Mail it sent (Mailpit, docs/operators.md#mail): $MAILPIT_URL/   API: $MAILPIT_URL/api/v1/messages
${OWNER_LINK:+Set up the first owner (a one-time link, 24 h): $OWNER_LINK
}Break-glass owner token (for recovery; see docs/accounts.md): MANAGER_TOKENS in .env.local

Demo partner $PARTNER_ID (these secrets are shown once):
  api_key         $API_KEY
  hmac_secret     $HMAC
  callback_secret $CALLBACK_SECRET

Send a first lead:

BODY='{"external_id":"demo-1","phone":"+447911123456","email":"ann@example.com","country":"GB","source":"demo"}'
TS=\$(date +%s)
SIG=sha256=\$(printf '%s' "\$BODY" | openssl dgst -sha256 -hmac '$HMAC' | sed 's/^.* //')
curl -s $BASE/api/v1/inbound/leads -H 'Authorization: Bearer $API_KEY' \\
  -H "X-Signature: \$SIG" -H "X-Timestamp: \$TS" -H "Idempotency-Key: \$(uuidgen 2>/dev/null || date +%s%N)" \\
  -H 'Content-Type: application/json' -d "\$BODY"

Then read its status (the signature of a GET covers the empty body):

TS=\$(date +%s); SIG=sha256=\$(printf '' | openssl dgst -sha256 -hmac '$HMAC' | sed 's/^.* //')
curl -s $BASE/api/v1/inbound/leads/demo-1/status -H 'Authorization: Bearer $API_KEY' -H "X-Signature: \$SIG" -H "X-Timestamp: \$TS"
MSG
