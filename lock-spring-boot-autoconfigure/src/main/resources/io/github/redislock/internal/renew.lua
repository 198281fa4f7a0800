-- Extends the leases of many held locks in one call; all keys must share one cluster slot.
-- KEYS[i] a lock hash; ARGV[1] the lease in milliseconds; ARGV[i + 1] the owner expected in KEYS[i]
-- Returns the 1-based positions of the locks this owner no longer holds (their renewal stops).
local lost = {}
for i = 1, #KEYS do
  if redis.call('hexists', KEYS[i], ARGV[i + 1]) == 1 then
    redis.call('pexpire', KEYS[i], ARGV[1])
  else
    lost[#lost + 1] = i
  end
end
return lost
