-- Releases one hold of a fair lock (see fair-lock.lua); the last one frees it and names the next waiter.
-- KEYS[1] the lock hash, KEYS[2] the queue
-- ARGV[1] owner, ARGV[2] the lock's release channel, ARGV[3] the holds this owner believes it has
-- Returns the holds left (> 0), 0 when the lock became free, -1 when this owner holds no lock here.
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
  return -1
end
local left = tonumber(ARGV[3]) - 1
if left > 0 then
  redis.call('hset', KEYS[1], ARGV[1], left)
  return left
end
redis.call('del', KEYS[1])
-- the message names the waiter whose turn it is: its client wakes it, and nobody else
local head = redis.call('zrange', KEYS[2], 0, 0)[1]
if head then
  redis.call('publish', ARGV[2], head)
end
return 0
