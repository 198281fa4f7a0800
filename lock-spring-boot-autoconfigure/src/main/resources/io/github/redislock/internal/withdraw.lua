-- Counts a waiter of the exclusive lock out when it stops waiting without the lock (a timeout, an
-- interrupt, a cancel), so that the holder's release does not keep the lock for nobody (see lock.lua).
-- When it was the last waiter of another client counted and the lock is kept for the other clients'
-- waiters right now (released or given up, see unlock.lua and pass.lua), nobody is left to take that
-- turn: the lock is freed, and the holder's client is told, so that its own waiters need not wait for
-- the turn's end. (A client that gave the lock up while its threads waited counts itself in too, as
-- w:<client>, see pass.lua: that mark stands for the yielding client's own threads, not for a turn.)
-- The client waits for this script's answer before the waiter's call returns: a caller that gave up
-- leaves nothing behind that could refuse anyone.
-- KEYS[1] the lock hash
-- ARGV[1] the owner that stopped waiting, ARGV[2] 1 to announce with SPUBLISH (sharded pub/sub), else PUBLISH,
-- ARGV[3] the lock's release channel
-- A channel is an argument, not a key (see unlock.lua).
-- Returns 1 when the owner was counted in, else 0 (it never marked the lock, or the lock was freed or
-- taken anew since).
if redis.call('hdel', KEYS[1], 'w:' .. ARGV[1]) == 0 then
  return 0
end
local left = redis.call('hincrby', KEYS[1], 'contended', -1)
local yieldedBy = redis.call('hget', KEYS[1], 'yielded-by')
if yieldedBy and left <= redis.call('hexists', KEYS[1], 'w:' .. yieldedBy) then
  redis.call('del', KEYS[1])
  redis.call(ARGV[2] == '1' and 'spublish' or 'publish', ARGV[3], 'released')
  return 1
end
if left <= 0 then
  redis.call('hdel', KEYS[1], 'contended')
end
return 1
