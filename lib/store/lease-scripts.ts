/**
 * The lease operations as Redis scripts, each one atomic. Time is Redis's
 * own (TIME), so the two copies' clocks never have to agree.
 */
const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** The same token, a live state: else the turn belongs to someone else now. */
const OWNED = `local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local rec = cjson.decode(raw)
if tonumber(rec.token) ~= tonumber(ARGV[1]) or rec.state == 'done' then return 0 end`;

/**
 * KEYS: the claim keys, primary first, then the lease set. ARGV: value, ttl
 * seconds, lease ms (0: no lease). Returns SET NX's own reply per key, so
 * only a null still means "duplicate". The lease is added only when every
 * key was taken.
 */
export const CLAIM_SCRIPT = `local n = #KEYS - 1
local out = {}
local all = true
for i = 1, n do
  local r = redis.call('SET', KEYS[i], ARGV[1], 'NX', 'EX', tonumber(ARGV[2]))
  if r then out[i] = 'OK' else out[i] = false; all = false end
end
if all and tonumber(ARGV[3]) > 0 then
  ${NOW}
  redis.call('ZADD', KEYS[n + 1], now + tonumber(ARGV[3]), KEYS[1])
end
return out`;

/** KEYS: key, lease set. ARGV: token, lease ms. */
export const RENEW_SCRIPT = `${OWNED}
${NOW}
redis.call('ZADD', KEYS[2], 'XX', now + tonumber(ARGV[2]), KEYS[1])
return 1`;

/**
 * -> posting, with the current token only (a taker-over of a `posting` turn
 * commits again under its new token). KEYS: key, lease set. ARGV: token, lease ms.
 */
export const COMMIT_SCRIPT = `${OWNED}
rec.state = 'posting'
redis.call('SET', KEYS[1], cjson.encode(rec), 'KEEPTTL')
${NOW}
redis.call('ZADD', KEYS[2], 'XX', now + tonumber(ARGV[2]), KEYS[1])
return 1`;

/** -> done, body dropped, kept ARGV[3] seconds. KEYS: key, lease set. ARGV: token, reply ts ('' for none), ttl. */
export const FINISH_SCRIPT = `${OWNED}
rec.state = 'done'
rec.body = nil
if ARGV[2] ~= '' then rec.reply_ts = ARGV[2] end
redis.call('SET', KEYS[1], cjson.encode(rec), 'EX', tonumber(ARGV[3]))
redis.call('ZREM', KEYS[2], KEYS[1])
return 1`;

/**
 * Take over every lapsed lease (up to ARGV[3]): a new token and owner, a
 * fresh lease. KEYS: lease set. ARGV: instance, role, lease ms, limit.
 * Returns the records taken, JSON-encoded.
 */
export const TAKEOVER_SCRIPT = `${NOW}
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
local out = {}
for _, key in ipairs(due) do
  local raw = redis.call('GET', key)
  local rec = raw and cjson.decode(raw)
  if not rec or rec.state == 'done' or not rec.body then
    redis.call('ZREM', KEYS[1], key)
  else
    rec.token = tonumber(rec.token) + 1
    rec.instance = ARGV[1]
    rec.role = ARGV[2]
    redis.call('SET', key, cjson.encode(rec), 'KEEPTTL')
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), key)
    out[#out + 1] = cjson.encode({ key = key, token = rec.token, state = rec.state, body = rec.body })
  end
end
return out`;
