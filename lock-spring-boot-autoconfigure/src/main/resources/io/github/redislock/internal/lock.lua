-- Acquires or re-enters a lock in one step.
-- KEYS[1] the lock hash (field = owner, value = hold count; field "token" = the holder's fencing token)
-- KEYS[2] the fencing counter, shared by every lock name in the same cluster slot
-- ARGV[1] lease in milliseconds, ARGV[2] owner ("<client-uuid>:<thread-id>"),
-- ARGV[3] the holds this owner believes it has (0 for a first acquisition)
-- Returns the fencing token (> 0) when acquired, else minus the holder's remaining lease in
-- milliseconds, or 0 when the holder's key has no expiry.
if redis.call('exists', KEYS[1]) == 0 then
  local token = redis.call('incr', KEYS[2])
  redis.call('hset', KEYS[1], ARGV[2], 1, 'token', token)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return token
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  -- Normally the stored count equals ARGV[3]. It is higher when an earlier acquire ran here but its
  -- reply never reached the owner (a timeout, a cut connection); the owner then takes that hold over
  -- as its own, so that its unlocks free the lock instead of leaving it held until the lease ends.
  redis.call('hset', KEYS[1], ARGV[2], tonumber(ARGV[3]) + 1)
  -- a nested acquisition may lengthen the lease, never shorten it
  if redis.call('pttl', KEYS[1]) < tonumber(ARGV[1]) then
    redis.call('pexpire', KEYS[1], ARGV[1])
  end
  return tonumber(redis.call('hget', KEYS[1], 'token'))
end
local ttl = redis.call('pttl', KEYS[1])
if ttl > 0 then
  return -ttl
end
return 0
