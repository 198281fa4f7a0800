-- Sets what is left of a reader's lease, shorter or longer, if the owner still reads.
-- KEYS[1] the lock hash, KEYS[2] the readers' lease ends (see read-lock.lua)
-- ARGV[1] owner, ARGV[2] the new remaining lease in milliseconds
-- Returns 1 when the owner reads (its lease is set), 0 when it does not.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
if redis.call('hexists', KEYS[1], 'r:' .. ARGV[1]) == 0 then
  return 0
end
local now = clock()
local lease = tonumber(ARGV[2])
redis.call('zadd', KEYS[2], now + lease, ARGV[1])
-- the keys outlive the longest lease; a shorter one ends with its entry above
for i = 1, 2 do
  if redis.call('pttl', KEYS[i]) < lease then
    redis.call('pexpire', KEYS[i], lease)
  end
end
return 1
