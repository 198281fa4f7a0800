-- Extends the leases of many held locks in one call; all keys must share one cluster slot.
-- ARGV[1] the lease in milliseconds; ARGV[i + 1] the field of the i-th hold in its lock hash: the owner
-- for an exclusive lock, "w:<owner>" for a write lock, "r:<owner>" for a read lock (see read-lock.lua).
-- KEYS: each hold's lock hash, in order; a read hold's is followed by its readers' lease ends.
-- Returns the 1-based positions of the holds no longer held (their renewal stops).
if redis.replicate_commands then
  -- Redis before 7 replicates scripts verbatim unless told: TIME (read holds) would forbid the writes
  redis.replicate_commands()
end
local lease = tonumber(ARGV[1])
local now
local lost = {}
local k = 1
local function raise(key)
  if redis.call('pttl', key) < lease then
    redis.call('pexpire', key, lease)
  end
end
for i = 2, #ARGV do
  local key = KEYS[k]
  local field = ARGV[i]
  local kind = string.sub(field, 1, 2)
  k = k + ((kind == 'r:') and 2 or 1)
  if redis.call('hexists', key, field) == 0 then
    lost[#lost + 1] = i - 1
  elseif kind == 'r:' then
    if not now then
      local time = redis.call('time')
      now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    end
    -- a read/write lock's hash outlives its longest lease, never shortened for one owner
    redis.call('zadd', KEYS[k - 1], now + lease, string.sub(field, 3))
    raise(key)
    raise(KEYS[k - 1])
  elseif kind == 'w:' then
    raise(key)
  else
    redis.call('pexpire', key, lease)
  end
end
return lost
