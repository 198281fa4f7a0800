-- Extends the leases of many semaphore permits in one call (the watchdog's renewal); all keys share one slot.
-- KEYS[i] the i-th hold's semaphore (see semaphore-acquire.lua)
-- ARGV[1] the lease in milliseconds; ARGV[i + 1] the i-th hold's owner
-- Returns the 1-based positions of the holds no longer held (their renewal stops).
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local now = clock()
local lease = tonumber(ARGV[1])
local lost = {}
for i = 1, #KEYS do
  local score = redis.call('zscore', KEYS[i], ARGV[i + 1])
  if not score or tonumber(score) <= now then
    lost[#lost + 1] = i
  else
    redis.call('zadd', KEYS[i], 'XX', now + lease, ARGV[i + 1])
    if redis.call('pttl', KEYS[i]) < lease then
      redis.call('pexpire', KEYS[i], lease)
    end
  end
end
return lost
