-- Releases one read hold of a read/write lock (see read-lock.lua), in O(1).
-- KEYS[1] the lock hash, KEYS[2] the readers' lease ends
-- ARGV[1] owner, ARGV[2] the read holds this owner believes it has, ARGV[3] 1 to announce with SPUBLISH
-- (sharded pub/sub), else PUBLISH, ARGV[4] the channel writers wait on
-- A channel is an argument, not a key: a channel is never a key, and a Redis Cluster slot being migrated
-- answers TRYAGAIN to a script that declares keys of which some exist and some do not.
-- Returns the holds left (> 0), 0 when this owner no longer reads, NOT_HELD (-1) when it held no read hold here.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local field = 'r:' .. ARGV[1]
if redis.call('hexists', KEYS[1], field) == 0 then
  return NOT_HELD
end
local left = tonumber(ARGV[2]) - 1
if left > 0 then
  redis.call('hset', KEYS[1], field, left)
  return left
end
redis.call('hdel', KEYS[1], field)
-- the owner's lease end stays in KEYS[2]: a later purge finds no hold and drops it, or it goes with the key
if redis.call('hincrby', KEYS[1], 'rn', -1) > 0 then
  return 0
end
if redis.call('hexists', KEYS[1], 'writer') == 1 then
  -- the last reader was the writer itself (it downgraded and still writes)
  redis.call('hdel', KEYS[1], 'rn', 'rt')
  return 0
end
redis.call('del', KEYS[1], KEYS[2])
publish(ARGV[3], ARGV[4], 'released')
return 0
