-- Acquires or re-enters the write side of a read/write lock (see read-lock.lua for the keys).
-- KEYS[1] the lock hash, KEYS[2] the readers' lease ends, KEYS[3] the writers waiting, KEYS[4] the
-- slot's fencing clock: the last token issued (see lock.lua)
-- ARGV[1] lease in milliseconds, ARGV[2] owner, ARGV[3] the write holds this owner believes it has,
-- ARGV[4] 1 when the caller waits if the lock is taken, else 0, ARGV[5] how long a waiting writer's mark
-- keeps new readers out (ms; the writer renews it by asking again), ARGV[6] the longest wait to answer (ms)
-- Returns, as every acquire script (see LockReply): the fencing token (> 0) when acquired; when busy, minus how
-- long to wait at most before asking again (ms; < 0), or 0 when no time is known (a holder key without expiry).
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local now, micros = clock()
local lease = tonumber(ARGV[1])
local field = 'w:' .. ARGV[2]
-- readers whose lease ended without a release (their JVM died): up to 100 a call, each removed once
local dead = redis.call('zrangebyscore', KEYS[2], '-inf', now, 'LIMIT', 0, 100)
for _, member in ipairs(dead) do
  if redis.call('hdel', KEYS[1], 'r:' .. member) == 1 and redis.call('hincrby', KEYS[1], 'rn', -1) <= 0 then
    redis.call('hdel', KEYS[1], 'rn', 'rt')
  end
  redis.call('zrem', KEYS[2], member)
end
if redis.call('hexists', KEYS[1], field) == 1 then
  -- re-entry; the owner's own count is the truth (see lock.lua); it may lengthen the lease
  redis.call('hset', KEYS[1], field, tonumber(ARGV[3]) + 1)
  if redis.call('pttl', KEYS[1]) < lease then
    redis.call('pexpire', KEYS[1], lease)
  end
  return tonumber(redis.call('hget', KEYS[1], 'wt'))
end
local writer = redis.call('hget', KEYS[1], 'writer')
-- a write or a read kept for nobody after a minimum hold (see read-lock.lua): no writer until it ends,
-- tryLock() included
local kept = redis.call('hmget', KEYS[1], 'kept-write', 'kept-read')
kept = math.max(tonumber(kept[1] or '0'), tonumber(kept[2] or '0'))
-- the readers that waited for the last writer have their turn first (see write-unlock.lua)
local turn = tonumber(redis.call('hget', KEYS[1], 'read-turn') or '0')
-- (a writer that does not wait takes a lock nobody holds, turn or not: see lock.lua)
if not writer and redis.call('hexists', KEYS[1], 'rn') == 0 and kept <= micros and (turn <= now or ARGV[4] ~= '1') then
  -- the slot's clock (see reserve() in prelude.lua)
  local token = reserve(KEYS[4], micros, 1)
  redis.call('hdel', KEYS[1], 'read-turn', 'kept-write', 'kept-read')
  redis.call('hset', KEYS[1], 'writer', ARGV[2], field, 1, 'wt', token)
  redis.call('pexpire', KEYS[1], lease)
  redis.call('zrem', KEYS[3], ARGV[2])
  return token
end
local mark = tonumber(ARGV[5])
if ARGV[4] == '1' then
  -- keeps new readers out until this writer got its turn (or stopped asking)
  redis.call('zadd', KEYS[3], now + mark, ARGV[2])
  if redis.call('pttl', KEYS[3]) < mark then
    redis.call('pexpire', KEYS[3], mark)
  end
end
local wait = tonumber(ARGV[6])
if writer then
  wait = math.min(wait, math.max(1, redis.call('pttl', KEYS[1])))
elseif kept > micros and redis.call('hexists', KEYS[1], 'rn') == 0 then
  -- its end ends the wait: no release will come
  wait = math.min(wait, math.max(math.ceil((kept - micros) / 1000), turn - now))
elseif turn > now and redis.call('hexists', KEYS[1], 'rn') == 0 then
  wait = math.min(wait, turn - now)
else
  -- readers: until the first of their leases ends, when a dead one is purged
  local first = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')
  if first[2] then
    wait = math.min(wait, math.max(1, tonumber(first[2]) - now))
  end
end
return -wait
