-- Passes a semaphore permit from one holder of a client to another of the same client without giving it back:
-- the permit keeps its member (the owner that took it from Redis, whom every later holder of it speaks as) and
-- its lease (the watchdog's, renewed as before); the new holder gets the next fencing token. Run by the client
-- at each pass: other holders may be granted permits meanwhile, so a token reserved earlier could be below one
-- granted and released since, and only the slot's clock gives one above every token issued.
-- KEYS[1] the semaphore (see semaphore-acquire.lua), KEYS[2] the slot's fencing clock: the last token issued
-- ARGV[1] the permit's member, ARGV[2] how many fencing tokens to reserve (1)
-- Returns the fencing token (> 0) when the member still holds its permit; NOT_HELD (-1) when it does not (its
-- lease passed, or the semaphore was force-released): the permit is then nobody's, and is not passed.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local now, micros = clock()
local score = redis.call('zscore', KEYS[1], ARGV[1])
if not score or tonumber(score) <= now then
  return NOT_HELD
end
-- the slot's clock, as a grant takes it (see reserve() in prelude.lua)
local token = reserve(KEYS[2], micros, tonumber(ARGV[2]))
return token
