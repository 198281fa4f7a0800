-- Counts a waiter of the exclusive lock out when it stops waiting without the lock (a timeout, an
-- interrupt, a cancel), so that the holder's release does not keep the lock for nobody (see lock.lua).
-- KEYS[1] the lock hash
-- ARGV[1] the owner that stopped waiting
-- Returns 1 when the owner was counted in, else 0 (it never marked the lock, or the lock was freed or
-- taken anew since).
if redis.call('hdel', KEYS[1], 'w:' .. ARGV[1]) == 0 then
  return 0
end
if redis.call('hincrby', KEYS[1], 'contended', -1) <= 0 then
  redis.call('hdel', KEYS[1], 'contended')
end
return 1
