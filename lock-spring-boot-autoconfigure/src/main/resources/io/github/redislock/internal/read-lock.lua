-- Acquires or re-enters the read side of a read/write lock: many owners read at once, or one writes.
-- KEYS[1] the lock hash: "r:<owner>" an owner's read holds, "rn" how many owners read, "rt" the read
--   phase's fencing token, "writer" the owner that writes, "w:<owner>" its write holds, "wt" its token,
--   "readers-waiting" set when a reader was kept out, "read-turn" until when (server ms) the readers that
--   waited may come in ahead of the writers waiting (see write-unlock.lua), "kept-write" until when (server
--   time in microseconds, exact: nobody comes in before) a write released with a minimum hold keeps the
--   lock for nobody: no new reader or writer comes in (see write-unlock.lua), "kept-read" until when a read
--   released so keeps writers out (see read-unlock.lua)
-- KEYS[2] when each reader's lease ends (sorted set: member = owner, score = Redis server time in ms)
-- KEYS[3] the writers waiting (sorted set: member = owner, score = when its wait mark ends, in ms)
-- KEYS[4] the slot's fencing clock: the last token issued (see lock.lua)
-- ARGV[1] lease in milliseconds, ARGV[2] owner, ARGV[3] the read holds this owner believes it has,
-- ARGV[4] 1 when the caller waits if it cannot read now, else 0
-- Returns, as every acquire script (see LockReply): the fencing token (> 0) when acquired; when busy, minus how
-- long to wait at most before asking again (ms; < 0), or 0 when no time is known (a holder key without expiry).
-- A grant's token is the read phase's.
-- A reader's token is the slot's clock when the read phase began: every write granted before the
-- read has a token at most that, every write granted after it a greater one.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local now, micros = clock()
local lease = tonumber(ARGV[1])
local field = 'r:' .. ARGV[2]
local function raise(key, ms)
  if redis.call('pttl', key) < ms then
    redis.call('pexpire', key, ms)
  end
end
-- readers whose lease ended without a release (their JVM died): up to 100 a call, each removed once
local dead = redis.call('zrangebyscore', KEYS[2], '-inf', now, 'LIMIT', 0, 100)
for _, member in ipairs(dead) do
  if redis.call('hdel', KEYS[1], 'r:' .. member) == 1 and redis.call('hincrby', KEYS[1], 'rn', -1) <= 0 then
    redis.call('hdel', KEYS[1], 'rn', 'rt')
  end
  redis.call('zrem', KEYS[2], member)
end
local reading = redis.call('hexists', KEYS[1], field) == 1
if not reading then
  local writer = redis.call('hget', KEYS[1], 'writer')
  if writer and writer ~= ARGV[2] then
    -- its release lets the readers kept out in before the next writer
    if ARGV[4] == '1' then
      redis.call('hset', KEYS[1], 'readers-waiting', 1)
    end
    local ttl = redis.call('pttl', KEYS[1])
    return (ttl > 0) and -ttl or 0
  end
  -- a write kept for nobody: nobody new reads until its minimum hold ends, tryLock() included; an owner
  -- that reads already re-enters (the writer that downgraded, say). Its end ends the wait: no release will come
  local kept = tonumber(redis.call('hget', KEYS[1], 'kept-write') or '0')
  if kept > micros then
    return -math.ceil((kept - micros) / 1000)
  end
  if ARGV[4] == '1' and not writer and tonumber(redis.call('hget', KEYS[1], 'read-turn') or '0') <= now then
    -- writers are not starved: a new reader that waits waits behind any writer waiting (an owner that
    -- reads already re-enters at once, and a writer downgrading reads at once); one that does not wait
    -- reads at once when nobody writes, as java.util.concurrent's tryLock() barges in
    redis.call('zremrangebyscore', KEYS[3], '-inf', now)
    local last = redis.call('zrange', KEYS[3], -1, -1, 'WITHSCORES')
    if last[2] then
      if redis.call('exists', KEYS[1]) == 1 then
        redis.call('hset', KEYS[1], 'readers-waiting', 1)
      end
      return -math.max(1, tonumber(last[2]) - now)
    end
  end
  if redis.call('hincrby', KEYS[1], 'rn', 1) == 1 then
    -- the read phase's token: no lower than any write granted before (the counter), and at least the
    -- clock, so that it holds across a lost or stale counter as writers' tokens do (see lock.lua); the
    -- counter is raised to it so that every later write is above it even if the clock steps back
    local last = tonumber(redis.call('get', KEYS[4]) or '0')
    local token = math.max(last, micros)
    if token > last then
      redis.call('set', KEYS[4], token)
    end
    redis.call('hset', KEYS[1], 'rt', token)
  end
  redis.call('zadd', KEYS[2], now + lease, ARGV[2])
else
  -- a nested acquisition may lengthen the lease, never shorten it
  local ends = tonumber(redis.call('zscore', KEYS[2], ARGV[2]) or '0')
  if ends < now + lease then
    redis.call('zadd', KEYS[2], now + lease, ARGV[2])
  end
end
-- The owner's own count is the truth (see lock.lua): a higher stored one is a grant whose reply was lost.
redis.call('hset', KEYS[1], field, reading and tonumber(ARGV[3]) + 1 or 1)
raise(KEYS[1], lease)
raise(KEYS[2], lease)
return tonumber(redis.call('hget', KEYS[1], 'rt'))
