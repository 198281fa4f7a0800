-- Counts a waiter of the exclusive lock out when it stops waiting without the lock (a timeout, an
-- interrupt, a cancel), so that the holder's release does not keep the lock for nobody (see lock.lua).
-- When it was the last waiter of another client than the yielding one and the lock is kept for the
-- other clients' waiters right now (released or given up, see unlock.lua and pass.lua), nobody is left
-- to take that turn: the lock is freed, and the yielding client is told, so that its own waiters need
-- not wait for the turn's end. (The yielding client's marks stand for its own threads, not for a turn:
-- w:<client>, counted in by pass.lua, and w:<owner> of its threads refused while the lock is yielded.)
-- The client waits for this script's answer before the waiter's call returns: a caller that gave up
-- leaves nothing behind that could refuse anyone.
-- KEYS[1] the lock hash
-- ARGV[1] the owner that stopped waiting, ARGV[2] 1 to announce with SPUBLISH (sharded pub/sub), else PUBLISH,
-- ARGV[3] the lock's release channel
-- A channel is an argument, not a key (see unlock.lua).
-- Returns 1 when the owner was counted in, else 0 (it never marked the lock, or the lock was freed or
-- taken anew since).
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
if redis.call('hdel', KEYS[1], 'w:' .. ARGV[1]) == 0 then
  return 0
end
local left = redis.call('hincrby', KEYS[1], 'contended', -1)
local yieldedBy = redis.call('hget', KEYS[1], 'yielded-by')
if yieldedBy then
  -- is a waiter of another client than the yielding one still counted? The yielding client's own
  -- marks (w:<client>, and those its threads left while the lock was yielded) wait for nobody's turn
  local own = 'w:' .. yieldedBy
  local others = false
  if left > 0 then
    for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
      if string.sub(field, 1, 2) == 'w:' and (yieldedBy == '' or string.sub(field, 1, #own) ~= own) then
        others = true
        break
      end
    end
  end
  if not others then
    redis.call('del', KEYS[1])
    publish(ARGV[2], ARGV[3], 'released')
    return 1
  end
end
if left <= 0 then
  redis.call('hdel', KEYS[1], 'contended')
end
return 1
