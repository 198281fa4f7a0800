-- Extends the leases of many held locks whose hash has one holder (exclusive and fair locks) in one call;
-- all keys must share one cluster slot.
-- KEYS[i] the i-th hold's lock hash
-- ARGV[1] the lease in milliseconds; ARGV[i + 1] the i-th hold's owner, its field in the hash
-- Returns the 1-based positions of the holds no longer held (their renewal stops).
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local lease = ARGV[1]
local lost = {}
for i = 1, #KEYS do
  if redis.call('hexists', KEYS[i], ARGV[i + 1]) == 0 then
    lost[#lost + 1] = i
  else
    redis.call('pexpire', KEYS[i], lease)
  end
end
return lost
