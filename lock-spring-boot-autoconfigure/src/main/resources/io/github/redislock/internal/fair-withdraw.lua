-- A waiter of a fair lock stopped waiting without the lock (its wait ended, it was interrupted or
-- cancelled): it leaves the queue, and when it was next in turn of a free lock, the next one is named.
-- KEYS[1] the lock hash, KEYS[2] the queue, KEYS[3] the waiters' heartbeats
-- ARGV[1] owner, ARGV[2] 1 to announce with SPUBLISH (sharded pub/sub), else PUBLISH, ARGV[3] the lock's release
-- channel
-- A channel is an argument, not a key: a channel is never a key, and a Redis Cluster slot being migrated
-- answers TRYAGAIN to a script that declares keys of which some exist and some do not.
-- Returns 1 when it was queued, else 0.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local head = redis.call('zrange', KEYS[2], 0, 0)[1]
redis.call('zrem', KEYS[3], ARGV[1])
if redis.call('zrem', KEYS[2], ARGV[1]) == 0 then
  return 0
end
if head == ARGV[1] and redis.call('exists', KEYS[1]) == 0 then
  local next = redis.call('zrange', KEYS[2], 0, 0)[1]
  if next then
    publish(ARGV[2], ARGV[3], next)
  end
end
return 1
