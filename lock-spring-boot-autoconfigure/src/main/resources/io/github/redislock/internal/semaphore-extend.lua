-- Sets what is left of a semaphore permit's lease, shorter or longer, if the owner still holds it.
-- KEYS[1] the semaphore (see semaphore-acquire.lua); ARGV[1] owner, ARGV[2] the new remaining lease in ms,
-- ARGV[3] 1 to announce with SPUBLISH (sharded pub/sub), else PUBLISH, ARGV[4] its release channel
-- Returns 1 when the owner holds a permit (its lease is set), 0 when it does not.
if redis.replicate_commands then
  redis.replicate_commands()
end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
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
  redis.call(ARGV[3] == '1' and 'spublish' or 'publish', ARGV[4], 'released')
end
return 1
