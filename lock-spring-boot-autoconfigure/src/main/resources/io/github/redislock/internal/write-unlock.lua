-- Releases one write hold of a read/write lock (see read-lock.lua).
-- KEYS[1] the lock hash, KEYS[2] the readers' lease ends
-- ARGV[1] owner, ARGV[2] the write holds this owner believes it has, ARGV[3] the channel readers wait
-- on, ARGV[4] the channel writers wait on
-- Returns the holds left (> 0), 0 when this owner no longer writes, -1 when it held no write hold here.
local field = 'w:' .. ARGV[1]
if redis.call('hexists', KEYS[1], field) == 0 then
  return -1
end
local left = tonumber(ARGV[2]) - 1
if left > 0 then
  redis.call('hset', KEYS[1], field, left)
  return left
end
redis.call('hdel', KEYS[1], field, 'writer', 'wt')
if redis.call('hexists', KEYS[1], 'rn') == 0 then
  redis.call('del', KEYS[1], KEYS[2])
end
-- with readers left (the writer downgraded), other readers may join them now
redis.call('publish', ARGV[3], 'released')
redis.call('publish', ARGV[4], 'released')
return 0
