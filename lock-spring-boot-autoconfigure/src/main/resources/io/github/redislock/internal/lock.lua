-- Acquires or re-enters a lock in one step.
-- KEYS[1] the lock hash (field = owner, value = hold count; field "token" = the holder's fencing token,
--   "client" = the holder's client, "w:<owner>" = a waiter of another client than the holder's
--   ("w:<client>": a client that gave the lock up while its threads waited, see pass.lua),
--   "contended" = how many such waiters there are: each counts itself in once, and out when it gets
--   the lock or stops waiting (see withdraw.lua), so that a release keeps the lock for nobody only
--   while someone waits)
-- KEYS[2] the slot's fencing clock, shared by every lock name in the same cluster slot: the last token
--   issued (microsecond-scale, see below)
-- ARGV[1] lease in milliseconds, ARGV[2] owner ("<client-uuid>:<thread-id>" or "<client-uuid>:h<n>"),
-- ARGV[3] the holds this owner believes it has (0 for a first acquisition),
-- ARGV[4] how many fencing tokens to reserve (>= 1): the holder's, and those of the threads of its
--   client it may pass the lock to without freeing it (see pass.lua), ARGV[5] 1 when the caller waits
--   if the lock is taken, else 0
-- Returns, as every acquire script (see LockReply): the fencing token (> 0) when acquired; when busy, minus how
-- long to wait at most before asking again (ms; < 0), or 0 when no time is known (a holder key without expiry).
-- A grant's token is the first reserved one; the wait is the holder's remaining lease.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local client = string.sub(ARGV[2], 1, string.find(ARGV[2], ':', 1, true))
-- (no local function for the grant: creating its closure on every call costs more than the
-- grant's few lines written once)
-- one read tells whether the lock is taken (NO_KEY: none) and, when it is, what is left of its lease
local ttl = redis.call('pttl', KEYS[1])
if ttl ~= NO_KEY then
  -- a lock its holder's client gave up for the others waiting (see pass.lua): free for any other
  -- client, and for a caller that does not wait: turns between clients are for waiters, and a
  -- tryLock() takes a lock nobody holds, as java.util.concurrent's tryLock() barges in
  -- one read for every field the steps below look at (a missing one reads as false)
  local fields = redis.call('hmget', KEYS[1], 'yielded-by', ARGV[2], 'client', 'token')
  local yieldedBy = fields[1]
  if not yieldedBy or (yieldedBy == client and ARGV[5] == '1') then
    local held = fields[2] ~= false
    -- Normally the stored count equals ARGV[3]. It is higher when an earlier acquire ran here but
    -- its reply never reached the owner (a timeout, a cut connection), or a release never did;
    -- the owner then takes that hold over as its own, so that its unlocks free the lock instead
    -- of leaving it held until the lease ends. An owner that believes it holds nothing takes it
    -- over as a new acquisition (below), with a token of its own: its client may have passed the
    -- lock on (see pass.lua) with reserved tokens above the stored one.
    if held and ARGV[3] ~= '0' then
      redis.call('hset', KEYS[1], ARGV[2], tonumber(ARGV[3]) + 1)
      -- a nested acquisition may lengthen the lease, never shorten it
      if ttl < tonumber(ARGV[1]) then
        redis.call('pexpire', KEYS[1], ARGV[1])
      end
      return tonumber(fields[4])
    end
    if not held then
      -- the holder's client stops passing the lock among its own threads once it sees this; the
      -- holder's release announces itself only when it is there (see unlock.lua)
      if ARGV[5] == '1' and fields[3] ~= client and redis.call('hsetnx', KEYS[1], 'w:' .. ARGV[2], 1) == 1 then
        redis.call('hincrby', KEYS[1], 'contended', 1)
      end
      if ttl > 0 then
        return -ttl
      end
      return 0
    end
  else
    -- cleared field by field, never deleted (the marker keeps a token): while its Cluster slot
    -- migrates, a key that went missing during the script could not be written again on this
    -- node. The other waiters' marks stay, counted: they now wait for this owner's turn to end;
    -- this owner counts itself out.
    redis.call('hdel', KEYS[1], 'yielded-by')
    -- counted out: every mark of this owner's client, its own ('w:<owner>'), its client's if that
    -- client gave a lock up while its threads waited (see pass.lua), and those its other threads left
    -- while another client held the lock. A mark stands for a waiter of another client than the
    -- holder's: left counted, it would make this client's release give the lock up for nobody. Its
    -- threads still waiting need none: the holder's client wakes them itself, and they mark again
    -- should another client take the lock first. (Only on this path, where another client waited.)
    local prefix = 'w:' .. client
    local out = 0
    for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
      if string.sub(field, 1, #prefix) == prefix then
        out = out + redis.call('hdel', KEYS[1], field)
      end
    end
    if out > 0 and redis.call('hincrby', KEYS[1], 'contended', -out) <= 0 then
      redis.call('hdel', KEYS[1], 'contended')
    end
  end
end
-- the token, and those reserved for passes, from the slot's clock (see reserve() in prelude.lua)
local _, micros = clock()
local token = reserve(KEYS[2], micros, tonumber(ARGV[4]))
redis.call('hset', KEYS[1], ARGV[2], 1, 'token', token, 'client', client)
redis.call('pexpire', KEYS[1], ARGV[1])
return token
