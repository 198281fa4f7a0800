-- Releases one write hold of a read/write lock (see read-lock.lua).
-- KEYS[1] the lock hash, KEYS[2] the readers' lease ends
-- ARGV[1] owner, ARGV[2] the write holds this owner believes it has, ARGV[3] 1 to announce with SPUBLISH
-- (sharded pub/sub), else PUBLISH, ARGV[4] how long the readers kept out while it wrote may come
-- in ahead of the writers waiting (ms): so that a stream of writers cannot starve them, ARGV[5] the
-- channel readers wait on, ARGV[6] the channel writers wait on
-- A channel is an argument, not a key: a channel is never a key, and a Redis Cluster slot being migrated
-- answers TRYAGAIN to a script that declares keys of which some exist and some do not.
-- Returns the holds left (> 0), 0 when this owner no longer writes, NOT_HELD (-1) when it held no write hold here.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local field = 'w:' .. ARGV[1]
if redis.call('hexists', KEYS[1], field) == 0 then
  return NOT_HELD
end
local left = tonumber(ARGV[2]) - 1
if left > 0 then
  redis.call('hset', KEYS[1], field, left)
  return left
end
redis.call('hdel', KEYS[1], field, 'writer', 'wt')
local readersWaiting = redis.call('hdel', KEYS[1], 'readers-waiting') == 1
if readersWaiting then
  local now = clock()
  local turn = tonumber(ARGV[4])
  redis.call('hset', KEYS[1], 'read-turn', now + turn)
  if redis.call('hexists', KEYS[1], 'rn') == 0 then
    -- nobody holds it: it lasts as long as the turn, unless a reader comes in
    redis.call('pexpire', KEYS[1], turn)
  end
elseif redis.call('hexists', KEYS[1], 'rn') == 0 then
  redis.call('del', KEYS[1], KEYS[2])
end
-- with readers left (the writer downgraded), other readers may join them now
publish(ARGV[3], ARGV[5], 'released')
publish(ARGV[3], ARGV[6], 'released')
return 0
