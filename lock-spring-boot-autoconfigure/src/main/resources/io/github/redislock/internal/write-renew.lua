-- Extends the leases of many write holds of read/write locks in one call; all keys must share one cluster
-- slot.
-- KEYS[i] the i-th hold's lock hash (see read-lock.lua)
-- ARGV[1] the lease in milliseconds; ARGV[i + 1] the i-th hold's field in the hash, "w:<owner>"
-- Returns the 1-based positions of the holds no longer held (their renewal stops).
-- The hash is shared with the readers: it outlives the longest lease, never shortened for one owner.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local lease = tonumber(ARGV[1])
local lost = {}
for i = 1, #KEYS do
  if redis.call('hexists', KEYS[i], ARGV[i + 1]) == 0 then
    lost[#lost + 1] = i
  elseif redis.call('pttl', KEYS[i]) < lease then
    redis.call('pexpire', KEYS[i], lease)
  end
end
return lost
