-- Extends the leases of many read holds of read/write locks in one call; all keys must share one cluster
-- slot.
-- KEYS[2i - 1] the i-th hold's lock hash, KEYS[2i] its readers' lease ends (see read-lock.lua)
-- ARGV[1] the lease in milliseconds; ARGV[i + 1] the i-th hold's field in the hash, "r:<owner>"
-- Returns the 1-based positions of the holds no longer held (their renewal stops).
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local lease = tonumber(ARGV[1])
local now
local lost = {}
-- the hash and the lease ends outlive the longest lease, never shortened for one owner
local function raise(key)
  if redis.call('pttl', key) < lease then
    redis.call('pexpire', key, lease)
  end
end
for i = 2, #ARGV do
  local key = KEYS[2 * i - 3]
  local ends = KEYS[2 * i - 2]
  if redis.call('hexists', key, ARGV[i]) == 0 then
    lost[#lost + 1] = i - 1
  else
    if not now then
      now = clock()
    end
    redis.call('zadd', ends, now + lease, string.sub(ARGV[i], 3))
    raise(key)
    raise(ends)
  end
end
return lost
