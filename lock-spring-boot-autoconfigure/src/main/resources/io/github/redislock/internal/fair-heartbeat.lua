-- Keeps the places of one client's waiters of a fair lock (see fair-lock.lua): one call every couple of
-- seconds for all of them, instead of each asking again. Also drops waiters gone (their process died), and
-- when the lock is free, names the waiter whose turn it is: the release may have named one that was gone.
-- KEYS[1] the lock hash, KEYS[2] the queue, KEYS[3] the waiters' heartbeats
-- ARGV[1] how long a waiter counts as alive from now (ms), ARGV[2] 1 to announce with SPUBLISH (sharded
-- pub/sub), else PUBLISH,
-- ARGV[3] the lock's release channel, ARGV[4...] the waiters' owners
-- A channel is an argument, not a key: a channel is never a key, and a Redis Cluster slot being migrated
-- answers TRYAGAIN to a script that declares keys of which some exist and some do not.
-- Returns the owners no longer queued (dropped as gone): they must ask again, at the back of the queue.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local now = clock()
local alive = tonumber(ARGV[1])
local missing = {}
for i = 4, #ARGV do
  if redis.call('zscore', KEYS[2], ARGV[i]) then
    redis.call('zadd', KEYS[3], now + alive, ARGV[i])
  else
    missing[#missing + 1] = ARGV[i]
  end
end
local gone = redis.call('zrangebyscore', KEYS[3], '-inf', now, 'LIMIT', 0, 100)
for _, member in ipairs(gone) do
  redis.call('zrem', KEYS[2], member)
  redis.call('zrem', KEYS[3], member)
end
for i = 2, 3 do
  if redis.call('pttl', KEYS[i]) < alive then
    redis.call('pexpire', KEYS[i], alive)
  end
end
if redis.call('exists', KEYS[1]) == 0 then
  local head = redis.call('zrange', KEYS[2], 0, 0)[1]
  if head then
    publish(ARGV[2], ARGV[3], head)
  end
end
return missing
