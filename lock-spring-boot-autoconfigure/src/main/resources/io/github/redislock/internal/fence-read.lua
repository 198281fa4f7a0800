-- Reads a slot's fencing counter (see lock.lua: the last token it issued or reserved) and the server's clock in
-- microseconds, together and on the node that holds the counter, without changing anything.
-- KEYS[1] the fencing counter
-- Returns {the counter, or nil when it is gone; the server's time in microseconds}
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local _, micros = clock()
return {redis.call('get', KEYS[1]), micros}
