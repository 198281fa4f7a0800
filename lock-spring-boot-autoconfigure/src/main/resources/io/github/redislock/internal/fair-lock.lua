-- Acquires or re-enters a fair lock: granted in the order the waiters first asked, across all clients.
-- KEYS[1] the lock hash (field = owner, value = hold count; field "token" = the holder's fencing token)
-- KEYS[2] the queue (sorted set: member = owner, score = its ticket, one more than the last one's)
-- KEYS[3] the waiters' heartbeats (sorted set: member = owner, score = Redis server time in ms after which
--   it counts as gone; each attempt of a waiter renews it)
-- KEYS[4] the slot's fencing clock: the last token issued (see lock.lua)
-- ARGV[1] lease in milliseconds, ARGV[2] owner, ARGV[3] the holds this owner believes it has,
-- ARGV[4] 1 when the caller waits if it cannot have the lock now (it queues), else 0,
-- ARGV[5] how long a waiter counts as alive after an attempt or a heartbeat (ms; its client renews the
-- heartbeats of its waiters together, see fair-heartbeat.lua), ARGV[6] how long to wait at most when the lock
-- is free but another waiter's turn (ms): that one may have gone without a word, ARGV[7] how long to wait at
-- most while it is held (ms): the release names the next waiter, and so does the heartbeat of a lock found free
-- (its holder died), so this only bounds what a lost message costs
-- Returns, as every acquire script (see LockReply): the fencing token (> 0) when acquired; when busy, minus how
-- long to wait at most before asking again (ms; < 0), or 0 when no time is known (a holder key without expiry).
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local now, micros = clock()
local lease = tonumber(ARGV[1])
local alive = tonumber(ARGV[5])
-- waiters that stopped asking (their process died): up to 100 a call, each removed once
local gone = redis.call('zrangebyscore', KEYS[3], '-inf', now, 'LIMIT', 0, 100)
for _, member in ipairs(gone) do
  redis.call('zrem', KEYS[2], member)
  redis.call('zrem', KEYS[3], member)
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  -- re-entry; the owner's own count is the truth (see lock.lua); it may lengthen the lease
  redis.call('hset', KEYS[1], ARGV[2], tonumber(ARGV[3]) + 1)
  if redis.call('pttl', KEYS[1]) < lease then
    redis.call('pexpire', KEYS[1], lease)
  end
  return tonumber(redis.call('hget', KEYS[1], 'token'))
end
local free = redis.call('exists', KEYS[1]) == 0
if free then
  local head = redis.call('zrange', KEYS[2], 0, 0)[1]
  -- its turn: nobody queued, or it is first in the queue; or it does not wait: the order is for
  -- waiters, and a tryLock() takes a lock nobody holds, as java.util.concurrent's fair tryLock() barges in
  if not head or head == ARGV[2] or ARGV[4] ~= '1' then
    -- the slot's clock (see reserve() in prelude.lua)
    local token = reserve(KEYS[4], micros, 1)
    redis.call('hset', KEYS[1], ARGV[2], 1, 'token', token)
    redis.call('pexpire', KEYS[1], lease)
    if head then
      redis.call('zrem', KEYS[2], ARGV[2])
      redis.call('zrem', KEYS[3], ARGV[2])
    end
    return token
  end
end
if ARGV[4] ~= '1' then
  -- does not wait, and the lock is held
  local ttl = redis.call('pttl', KEYS[1])
  return (ttl > 0) and -ttl or 0
end
if not redis.call('zscore', KEYS[2], ARGV[2]) then
  local last = redis.call('zrange', KEYS[2], -1, -1, 'WITHSCORES')[2]
  redis.call('zadd', KEYS[2], (last and tonumber(last) or 0) + 1, ARGV[2])
end
redis.call('zadd', KEYS[3], now + alive, ARGV[2])
-- the queue's keys live as long as somebody keeps asking
for i = 2, 3 do
  if redis.call('pttl', KEYS[i]) < alive then
    redis.call('pexpire', KEYS[i], alive)
  end
end
if not free then
  -- kept for nobody after a holdAtLeast (see fair-unlock.lua): no release will name the next waiter,
  -- so it sleeps until the lock expires; the others wait for it to name them as usual
  if redis.call('hexists', KEYS[1], 'hold-at-least') == 1 and redis.call('zrange', KEYS[2], 0, 0)[1] == ARGV[2] then
    return -math.max(1, math.min(tonumber(ARGV[7]), redis.call('pttl', KEYS[1])))
  end
  -- held: counted from now, not until the holder's lease end, which is the same moment for every waiter
  return -tonumber(ARGV[7])
end
return -tonumber(ARGV[6])
