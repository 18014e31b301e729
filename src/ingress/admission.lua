--[[
  Admits one authenticated, correctly signed partner request in one round trip (sliding-window.lua
  and idempotency-record.lua are in front of this): the client address's failed authentications,
  then the partner's rate limit, then, for an intake request with a valid Idempotency-Key, its
  claim. Each step runs only if the one before let the request through, so a refused request
  spends no quota and claims no key. The three keys live on one Redis (standalone or a primary
  with replicas, as every script of the service assumes; not Redis Cluster).

  Input:
    KEYS[1]  the address's failed authentications, "<prefix>af:<client ip>" (only read)
    KEYS[2]  the partner's window, "<prefix>rl:<endpoint>:<partner id>"
    KEYS[3]  the Idempotency-Key record, "<prefix>idem:<partner id>:<key>" (with ARGV[5] = '1')
    ARGV[1]  failed authentications allowed per window
    ARGV[2]  window length in milliseconds (both windows)
    ARGV[3]  the partner's requests allowed per window
    ARGV[4]  member id of this request in the partner's window
    ARGV[5]  '1' to claim the Idempotency-Key, '0' not to
    ARGV[6]  HMAC-SHA256 (HASH_KEY) of the raw request body
    ARGV[7]  stale time of a processing record, milliseconds (the decision timeout)
    ARGV[8]  idempotency window in seconds

  Output:
    { 'auth_failures', retry_after_ms }   the address is over its failed authentications
    { 'rate_limited', retry_after_ms }    the partner is over its rate limit
    { 'admitted' }                        admitted, no key to claim
    the claim's answer (idempotency-record.lua) when ARGV[5] is '1'
]]
local now = redis_now_ms()
local window = tonumber(ARGV[2])

local ok, retry_ms = window_take(KEYS[1], tonumber(ARGV[1]), window, '', now)
if ok == 0 then
  return { 'auth_failures', retry_ms }
end
ok, retry_ms = window_take(KEYS[2], tonumber(ARGV[3]), window, ARGV[4], now)
if ok == 0 then
  return { 'rate_limited', retry_ms }
end
if ARGV[5] ~= '1' then
  return { 'admitted' }
end
return idempotency_claim(KEYS[3], ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[8]), now)
