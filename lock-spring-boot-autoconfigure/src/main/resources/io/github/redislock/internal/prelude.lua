-- The prelude: the opening every lock script shares. It is not run on its own: ScriptTexts puts it in
-- front of each script of this folder when the script is loaded, so the SHA1 Redis knows a script by
-- covers both, and whatever evaluates a script (the library, the model's replays, tests) runs the same
-- text. (Redis' error messages count lines from here: subtract this file's lines to find a script's.)
-- It gives a script:
--   the replication guard (below), before anything the script writes;
--   clock(): the server's time, read only where a script calls it, so that a script that needs no
--     time sends no TIME (a value computed here would cost every script a TIME);
--   publish(sharded, channel, message): announces on the lock's channel, sharded or not;
--   reserve(counter, micros, count): the first of count fencing tokens taken from the slot's clock;
--   keepFor(keep, endsAt, micros): how long a lock released before its minimum hold stays kept for nobody;
--   the reply codes the scripts share, each named once here and decoded once in Java.
-- What a script takes arrives the same way from every kind (ScriptCalls): its keys in KEYS, a channel
-- whole in ARGV (never a key), the owner, numbers and flags ('1' or '0') as their decimal text.
-- Functions rather than repeated lines: each is a closure made on every call, a fraction of a microsecond
-- of server time against the round trip every call is (measured in docs/design/lock-kinds.md).
if redis.replicate_commands and not redis.REDIS_VERSION_NUM then
  -- Redis before 5 replicates a script verbatim unless told: one that reads TIME could then not write.
  -- It must be asked before the script's first write (it answers false after one), so it comes first.
  -- Redis 7, the first to tell scripts its version, only replicates effects: asking there changes
  -- nothing and costs every call about a tenth of a microsecond, which the version check does not.
  redis.replicate_commands()
end
-- A release script's reply when the owner holds nothing here (its lease ran out, or the lock was
-- force-unlocked): LockReply.released reads any negative reply so.
local NOT_HELD = -1
-- What PTTL answers for a key that does not exist, and what a read answers for a lease nobody holds:
-- LockReads.NO_KEY in Java.
local NO_KEY = -2
-- The server's clock, one TIME: milliseconds (leases and the scores of lease ends) and microseconds
-- (fencing tokens, and the end of a minimum hold). A script calls it once and keeps what it needs.
local function clock()
  local time = redis.call('time')
  local seconds, micros = tonumber(time[1]), tonumber(time[2])
  return seconds * 1000 + math.floor(micros / 1000), seconds * 1000000 + micros
end
-- The fencing clock (docs/design/fencing-and-sharded-pubsub.md): a token is a hybrid logical clock, at
-- least the server's time in microseconds, so that a counter lost (restart, FLUSHALL, eviction) or stale
-- (a promoted replica) starts above every earlier token, and above the counter, so that it never goes back
-- on one server. counter: the slot's clock key, set to the last token reserved; micros: clock()'s second
-- value; count: how many tokens to reserve (>= 1). Returns the first, max(counter + 1, micros).
-- Kept numbers: tostring() or .. would round them (%.14g).
local function reserve(counter, micros, count)
  local last
  if redis.REDIS_VERSION_NUM then
    -- Redis 7 (the first to tell its version to scripts) has SET ... GET: one command writes the clock's
    -- new value and reads the old, which is all it takes while the clock is ahead of the counter (tokens
    -- are issued less often than once a microsecond, and the clock did not step back)
    last = tonumber(redis.call('set', counter, micros + count - 1, 'get') or '0')
    if last < micros then
      return micros
    end
  else
    last = tonumber(redis.call('get', counter) or '0')
  end
  local token = math.max(last + 1, micros)
  redis.call('set', counter, token + count - 1)
  return token
end
-- holdAtLeast: keep, the milliseconds the client asks a release to keep the lock for nobody, runs from now,
-- but the client counted it from when the grant's reply reached it: kept that long, the lock would stay taken
-- a round trip past the minimum hold. endsAt, the server's time (microseconds) at which the minimum hold ends,
-- counted from the grant ('0' when unknown: the keep stands), ends it on this server's clock. micros: the
-- server's time if the script read it already, else nil. Returns milliseconds; not kept unless > 0.
local function keepFor(keep, endsAt, micros)
  keep = tonumber(keep)
  if keep > 0 and tonumber(endsAt) > 0 then
    if not micros then
      local _
      _, micros = clock()
    end
    keep = math.min(keep, math.ceil((tonumber(endsAt) - micros) / 1000))
  end
  return keep
end
-- sharded: the script's argument that says how to announce ('1': SPUBLISH, sharded pub/sub on a Redis
-- Cluster; else PUBLISH); channel: taken whole from ARGV (a channel is never a key, see ScriptKeysTests)
local function publish(sharded, channel, message)
  redis.call(sharded == '1' and 'spublish' or 'publish', channel, message)
end
