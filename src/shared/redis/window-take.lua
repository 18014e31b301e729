--[[
  Takes a place in one sliding window (sliding-window.lua, in front of this): the failed
  authentications of one client address (the ingress), the contacts revealed for one agent (the
  manager).

  Input:
    KEYS[1]  the window, e.g. "<prefix>af:<client ip>", "<prefix>reveals:<agent id>"
    ARGV[1]  limit: requests allowed per window
    ARGV[2]  window length in milliseconds
    ARGV[3]  member id, unique per request (instance id and a counter); empty to only ask

  Output: { allowed, retry_after_ms }
    { 1, 0 }   allowed (and recorded, unless only asked)
    { 0, ms }  refused; the next request is allowed in ms milliseconds
]]
local allowed, retry_ms = window_take(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], redis_now_ms())
return { allowed, retry_ms }
