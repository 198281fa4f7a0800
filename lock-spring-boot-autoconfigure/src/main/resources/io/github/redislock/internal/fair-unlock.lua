-- Releases one hold of a fair lock (see fair-lock.lua); the last one frees it and names the next waiter.
-- KEYS[1] the lock hash, KEYS[2] the queue
-- ARGV[1] owner, ARGV[2] 1 to announce with SPUBLISH (sharded pub/sub), else PUBLISH, ARGV[3] the holds this owner believes it has,
-- ARGV[4] milliseconds the lock must stay taken after the last hold (holdAtLeast), 0 for none,
-- ARGV[5] when ARGV[4] > 0: the time of this server's clock (TIME, in microseconds) at which the minimum hold
-- ends, counted from the grant, or 0 when unknown (see unlock.lua), ARGV[6] the lock's release channel
-- A channel is an argument, not a key: a channel is never a key, and a Redis Cluster slot being migrated
-- answers TRYAGAIN to a script that declares keys of which some exist and some do not.
-- Returns the holds left (> 0), 0 when the lock became free (or is kept for nobody), NOT_HELD (-1) when this owner
-- holds no lock here.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
  return NOT_HELD
end
local left = tonumber(ARGV[3]) - 1
if left > 0 then
  redis.call('hset', KEYS[1], ARGV[1], left)
  return left
end
local keep = keepFor(ARGV[4], ARGV[5])
if keep > 0 then
  -- kept for nobody, not even this owner, until it expires (see unlock.lua); the next waiter, named
  -- below, is told how long that is (see fair-lock.lua) and takes it then
  redis.call('hdel', KEYS[1], ARGV[1])
  redis.call('hset', KEYS[1], 'hold-at-least', 1)
  redis.call('pexpire', KEYS[1], keep)
else
  redis.call('del', KEYS[1])
end
-- the message names the waiter whose turn it is: its client wakes it, and nobody else
local head = redis.call('zrange', KEYS[2], 0, 0)[1]
if head then
  publish(ARGV[2], ARGV[6], head)
end
return 0
