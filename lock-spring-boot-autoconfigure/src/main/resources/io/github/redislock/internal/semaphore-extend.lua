-- Sets what is left of a semaphore permit's lease, shorter or longer, if the owner still holds it.
-- KEYS[1] the semaphore (see semaphore-acquire.lua); ARGV[1] owner, ARGV[2] the new remaining lease in ms,
-- ARGV[3] 1 to announce with SPUBLISH (sharded pub/sub), else PUBLISH, ARGV[4] its release channel
-- Returns 1 when the owner holds a permit (its lease is set), 0 when it does not.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local now = clock()
local score = redis.call('zscore', KEYS[1], ARGV[1])
if not score or tonumber(score) <= now then
  return 0
end
local lease = tonumber(ARGV[2])
redis.call('zadd', KEYS[1], 'XX', now + lease, ARGV[1])
if redis.call('pttl', KEYS[1]) < lease then
  redis.call('pexpire', KEYS[1], lease)
end
if now + lease < tonumber(score) then
  -- shortened: waiters refused earlier were told the old end, and would sleep past the new one if the permit
  -- is not released; they ask again and are told the earliest end now
  publish(ARGV[3], ARGV[4], 'released')
end
return 1
