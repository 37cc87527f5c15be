/**
 * Every store operation that must be atomic, as a Redis script. Time is
 * Redis's own (TIME), so the copies' clocks never have to agree. Replies are
 * integers or strings the script builds: never a status reply such as `OK`,
 * whose base64 encoding inside an array the REST API leaves undocumented.
 */
import { LEASES_INDEXED, LEASES_INDEXED_SCORE } from './keys.js';
import { OWNER_DIED_FORMAT } from './lease.js';
import { STORE_LIMITS as L } from './limits.js';

const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** Decode the record at KEYS[1]; `rec` is nil when absent or unreadable. */
const RECORD = `local raw = redis.call('GET', KEYS[1])
local rec = nil
if raw then local ok, v = pcall(cjson.decode, raw); if ok and type(v) == 'table' then rec = v end end`;

/**
 * As OWNED, but a record that is not there at all (flushed, evicted) answers
 * `missing` (2 unless the script says), not 0: nobody else holds the turn,
 * and its owner writes it again.
 */
const ownedOrMissing = (missing = 2) => `${RECORD}
if not raw then return ${missing} end
if not rec or tonumber(rec.token) ~= tonumber(ARGV[1]) or (rec.state ~= 'claimed' and rec.state ~= 'posting') then return 0 end`;
const OWNED_OR_MISSING = ownedOrMissing();

/** The lease set's "known whole" member and its score (keys.ts). */
const INDEXED = `local indexed_member, indexed_score = '${LEASES_INDEXED}', ${LEASES_INDEXED_SCORE}`;

/** Open shared rate-limit windows, flattened after `out[1]`; closed ones are dropped. KEYS[W] is the hash. */
/**
 * Whether a conversation's member `m` is live (its record claimed, posting or
 * waiting for a retry), as `live`: the claim's first look and the
 * conversation's look read it alike. `indent`: the lines after the first.
 */
const MEMBER_LIVE = (indent: string) =>
  [
    "local raw = redis.call('GET', m)",
    'local live = false',
    'if raw then',
    '  local ok, rec = pcall(cjson.decode, raw)',
    "  live = ok and type(rec) == 'table' and (rec.state == 'claimed' or rec.state == 'posting' or rec.state == 'retry')",
    'end',
  ].join(`\n${indent}`);

const WINDOWS = (w: string) => `local win = redis.call('HGETALL', ${w})
for i = 1, #win, 2 do
  if tonumber(win[i + 1]) and tonumber(win[i + 1]) > now then out[#out + 1] = win[i]; out[#out + 1] = win[i + 1]
  else redis.call('HDEL', ${w}, win[i]) end
end`;

/**
 * KEYS: the claim keys (primary first), the lease set, the windows hash, the
 * served mark, the gaps list, then (with ARGV[7] '1') the order of the
 * conversation the delivery belongs to, then (with ARGV[8] '1' too) its
 * skipped, admitted and interrupted sets. ARGV: primary record, alias record,
 * ttl s, lease ms (0: none), nonce, gap ms (a silence longer than this is
 * recorded as a gap for the catch-up sweep; 0: none), '1' when the last key
 * is a conversation's order, '1' when the claim makes the turn's first look.
 * A leased claim with an order takes its place there in the same command
 * (the primary key at the claim's time, as CONVERSATION_SCRIPT's first look
 * would), so a message claimed before a follow-up stays ahead of it even if
 * its copy dies before that look.
 * With ARGV[8] '1', a turn so placed and alone in its order (not skipped, no
 * other member live: the ended ones dropped on the way) is admitted here,
 * exactly as that first look would admit it (into the admitted set, which
 * lasts as the order does), and the reply says 'go': its copy's gate does
 * not look (one command less a mention). Any other turn's gate looks as before.
 * Returns {'claimed' | 'mine' | 'held:<holder nonce>', 'go' when admitted, window field, reopen ms, ...}.
 * All keys or none: a delivery is never half claimed.
 */
export const CLAIM_SCRIPT = `${NOW}
local placed = ARGV[7] == '1'
local looks = placed and ARGV[8] == '1'
local n = #KEYS - 4
if placed then n = n - 1 end
if looks then n = n - 3 end
local out = {}
local go = false
for i = 1, n do
  local raw = redis.call('GET', KEYS[i])
  if raw then
    local ok, rec = pcall(cjson.decode, raw)
    local holder = (ok and type(rec) == 'table' and type(rec.nonce) == 'string') and rec.nonce or '?'
    out[1] = (holder == ARGV[5]) and 'mine' or ('held:' .. holder)
    break
  end
end
if not out[1] then
  local lease = tonumber(ARGV[4])
  local primary = ARGV[1]
  if lease > 0 then
    local rec = cjson.decode(ARGV[1]); rec.first_at = now; primary = cjson.encode(rec)
    redis.call('ZADD', KEYS[n + 1], now + lease, KEYS[1])
    if placed then
      redis.call('ZADD', KEYS[n + 5], 'NX', string.format('%d', now), KEYS[1])
      redis.call('EXPIRE', KEYS[n + 5], ${L.conversationTtlSeconds})
      -- The turn's first look, for a turn alone in its order (CONVERSATION_SCRIPT would admit it as this does).
      if looks and redis.call('SISMEMBER', KEYS[n + 6], KEYS[1]) == 0 then
        local ended = {}
        go = true
        for _, m in ipairs(redis.call('ZRANGE', KEYS[n + 5], 0, -1)) do
          if m ~= KEYS[1] then
            ${MEMBER_LIVE('            ')}
            if live then go = false; break end
            ended[#ended + 1] = m
          end
        end
        if go then
          for _, m in ipairs(ended) do redis.call('ZREM', KEYS[n + 5], m); redis.call('SREM', KEYS[n + 7], m); redis.call('SREM', KEYS[n + 8], m) end
          redis.call('SADD', KEYS[n + 7], KEYS[1])
          redis.call('EXPIRE', KEYS[n + 7], ${L.conversationTtlSeconds})
        end
      end
    end
  end
  for i = 1, n do redis.call('SET', KEYS[i], i == 1 and primary or ARGV[2], 'EX', tonumber(ARGV[3])) end
  local prev = tonumber(redis.call('GET', KEYS[n + 3]))
  local gap = tonumber(ARGV[6]) or 0
  if prev and gap > 0 and now - prev > gap then
    redis.call('RPUSH', KEYS[n + 4], string.format('%d:%d', prev, now))
    redis.call('LTRIM', KEYS[n + 4], -${L.gapsKept}, -1)
    redis.call('EXPIRE', KEYS[n + 4], ${L.gapsTtlSeconds})
  end
  redis.call('SET', KEYS[n + 3], now, 'EX', ${L.servedTtlSeconds})
  out[1] = 'claimed'
  if go then out[2] = 'go' end
end
${WINDOWS('KEYS[n + 2]')}
return out`;

/**
 * A leased claim that timed out at its copy, asked about once the store
 * answers: did it land? KEYS: key, lease set. ARGV: the claim's nonce, lease ms.
 * Returns 'mine' (landed, live, still token 1: its lease is kept from now),
 * 'lost' (landed, then taken over or ended), 'held' (another claim's) or
 * 'absent' (never landed).
 */
export const CONFIRM_SCRIPT = `${NOW}
${RECORD}
if not raw then return 'absent' end
if not rec or rec.nonce ~= ARGV[1] then return 'held' end
if tonumber(rec.token) ~= 1 or (rec.state ~= 'claimed' and rec.state ~= 'posting') then return 'lost' end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), KEYS[1])
return 'mine'`;

/**
 * KEYS: the lease set, then each lease's key. ARGV: lease ms, then per lease
 * its token and how much of its streamed reply Slack has confirmed ('' when
 * it streams nothing). Returns 1 (renewed), 0 (lost) or 2 (missing: no
 * record at all) per lease. A renewal acknowledges a look's take (`unacked`
 * cleared): from then a lapse of it is its owner's death.
 */
export const RENEW_SCRIPT = `${NOW}
local out = {}
for i = 2, #KEYS do
  local raw = redis.call('GET', KEYS[i])
  local ok, rec = false, nil
  if raw then ok, rec = pcall(cjson.decode, raw) end
  local token = ARGV[2 * (i - 1)]
  local confirmed = ARGV[2 * (i - 1) + 1]
  if not raw then out[#out + 1] = 2
  elseif ok and type(rec) == 'table' and tonumber(rec.token) == tonumber(token) and (rec.state == 'claimed' or rec.state == 'posting') then
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), KEYS[i]); out[#out + 1] = 1
    local changed = rec.unacked ~= nil
    rec.unacked = nil
    if confirmed ~= '' and tonumber(confirmed) ~= tonumber(rec.stream_confirmed) then
      rec.stream_confirmed = tonumber(confirmed)
      changed = true
    end
    if changed then redis.call('SET', KEYS[i], cjson.encode(rec), 'KEEPTTL') end
  else out[#out + 1] = 0 end
end
return out`;

/** -> posting, with the current token only. KEYS: key, lease set. ARGV: token, lease ms. Returns 1, 0 lost, 2 missing. */
export const COMMIT_SCRIPT = `${OWNED_OR_MISSING}
${NOW}
rec.state = 'posting'
redis.call('SET', KEYS[1], cjson.encode(rec), 'KEEPTTL')
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), KEYS[1])
return 1`;

/**
 * A streamed reply started: its message's ts is this turn's, so a taker-over
 * completes that message instead of adding a second. KEYS: key. ARGV: token, ts.
 * Returns 1, 0 lost, 2 missing.
 */
export const STREAM_SCRIPT = `${OWNED_OR_MISSING}
rec.stream = ARGV[2]
redis.call('SET', KEYS[1], cjson.encode(rec), 'KEEPTTL')
return 1`;

/**
 * The owner writes its forgotten claim again: only where the key is absent
 * (or already holds this token, live: a restore whose answer was lost), back
 * into the lease set, and each message alias that is gone re-created.
 * KEYS: key, lease set, alias keys. ARGV: token, the record (first_at is set
 * here), the alias record, ttl s, lease ms. Returns 1 (written or already
 * ours) or 0 (another record is there).
 */
export const RESTORE_SCRIPT = `${NOW}
local key, leases = KEYS[1], KEYS[2]
local token, ttl, lease = tonumber(ARGV[1]), tonumber(ARGV[4]), tonumber(ARGV[5])
${RECORD}
if raw then
  if not rec or tonumber(rec.token) ~= token or (rec.state ~= 'claimed' and rec.state ~= 'posting') then return 0 end
else
  local fresh = cjson.decode(ARGV[2])
  fresh.first_at = now
  redis.call('SET', key, cjson.encode(fresh), 'EX', ttl)
end
redis.call('ZADD', leases, now + lease, key)
for i = 3, #KEYS do redis.call('SET', KEYS[i], ARGV[3], 'EX', ttl, 'NX') end
return 1`;

/**
 * Rebuilding a lost lease set from the records a scan found: each live turn
 * not in the set goes back in, due a lease from now (its owner, if alive,
 * renews it before then; if dead, it is taken over then). On the scan's last
 * page the set is marked whole. KEYS: lease set, record keys.
 * ARGV: lease ms, '1' when the scan is complete. Returns how many went back in.
 */
export const REINDEX_SCRIPT = `${NOW}
${INDEXED}
local leases = KEYS[1]
local lease = tonumber(ARGV[1])
local added = 0
for i = 2, #KEYS do
  if not redis.call('ZSCORE', leases, KEYS[i]) then
    local raw = redis.call('GET', KEYS[i])
    local ok, rec = false, nil
    if raw then ok, rec = pcall(cjson.decode, raw) end
    if ok and type(rec) == 'table' and rec.body and (rec.state == 'claimed' or rec.state == 'posting' or rec.state == 'retry') then
      redis.call('ZADD', leases, now + lease, KEYS[i]); added = added + 1
    end
  end
end
if ARGV[2] == '1' then redis.call('ZADD', leases, indexed_score, indexed_member) end
return added`;

/** The turn's line on the status page, pushed in the same round trip. KEYS[T]: turns list. */
const TURN_RECORD = (t: string, a: string) => `if ${a} ~= '' then
  redis.call('LPUSH', ${t}, ${a}); redis.call('LTRIM', ${t}, 0, ${L.turnLines - 1}); redis.call('EXPIRE', ${t}, ${L.listTtlSeconds})
end`;

/**
 * -> done: the body dropped, the reply's ts kept, the lease gone, and the
 * status page's lines written. KEYS: key, lease set, turns, failovers,
 * cloud-last-served. ARGV: token, reply ts ('' for none), ttl s, turn line
 * ('' for none), '1' when served by the cloud copy, ISO time.
 * Returns 1, 0 lost, 2 missing.
 */
export const FINISH_SCRIPT = `${OWNED_OR_MISSING}
rec.state = 'done'
rec.body = nil
if ARGV[2] ~= '' then rec.reply_ts = ARGV[2] end
redis.call('SET', KEYS[1], cjson.encode(rec), 'EX', tonumber(ARGV[3]))
redis.call('ZREM', KEYS[2], KEYS[1])
${TURN_RECORD('KEYS[3]', 'ARGV[4]')}
if ARGV[5] == '1' then
  redis.call('LPUSH', KEYS[4], ARGV[6]); redis.call('LTRIM', KEYS[4], 0, ${L.failoverLines - 1}); redis.call('EXPIRE', KEYS[4], ${L.listTtlSeconds})
  redis.call('SET', KEYS[5], ARGV[6], 'EX', ${L.cloudServedTtlSeconds})
end
return 1`;

/** Dead-letter the record `rec` (owned, decoded). Needs KEYS: key, lease set, dead set, turns; ARGV[D]: ttl s, ARGV[A]: turn line. */
const TO_DEAD = (ttl: string, line: string) => `rec.state = 'dead'
rec.dead_at = now
redis.call('SET', KEYS[1], cjson.encode(rec), 'EX', tonumber(${ttl}))
redis.call('ZREM', KEYS[2], KEYS[1])
redis.call('ZADD', KEYS[3], now, KEYS[1])
redis.call('EXPIRE', KEYS[3], tonumber(${ttl}))
${TURN_RECORD('KEYS[4]', line)}`;

/**
 * A failed turn handed back: another run after `delay`, or a dead letter when
 * its runs or its time are spent. KEYS: key, lease set, dead set, turns.
 * ARGV: token, delay ms, reason, ambiguous ('1'/'0'), max runs, window ms,
 * dead ttl s, turn line for a dead letter, free ('1': this run is not
 * counted). Returns 1 retry, 2 dead, 0 lost, 3 missing.
 */
export const RELEASE_SCRIPT = `${ownedOrMissing(3)}
${NOW}
local attempts = tonumber(rec.attempts) or 1
local first = tonumber(rec.first_at) or now
local delay = tonumber(ARGV[2])
rec.reason = ARGV[3]
rec.ambiguous = ARGV[4] == '1'
local free = ARGV[9] == '1'
if (not free and attempts >= tonumber(ARGV[5])) or now + delay - first > tonumber(ARGV[6]) then
  ${TO_DEAD('ARGV[7]', 'ARGV[8]')}
  return 2
end
rec.state = 'retry'
-- A free run is taken back: the next take counts it again.
if free then rec.attempts = attempts - 1 end
redis.call('SET', KEYS[1], cjson.encode(rec), 'KEEPTTL')
redis.call('ZADD', KEYS[2], now + delay, KEYS[1])
return 1`;

/** A turn that can never succeed: dead at once. KEYS as RELEASE. ARGV: token, reason, dead ttl s, turn line. Returns 1, 0 lost, 2 missing. */
export const DEAD_SCRIPT = `${OWNED_OR_MISSING}
${NOW}
rec.reason = ARGV[2]
${TO_DEAD('ARGV[3]', 'ARGV[4]')}
return 1`;

/** Take `rec` at KEYS-less `key` for ARGV owner; appends the takeover to `out`. */
const TAKE = `local prev = rec.state
rec.token = tonumber(rec.token) + 1
rec.instance = ARGV[1]
rec.role = ARGV[2]
rec.attempts = (tonumber(rec.attempts) or 1) + 1
rec.state = 'claimed'
redis.call('SET', key, cjson.encode(rec), 'KEEPTTL')
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), key)
out[#out + 1] = cjson.encode({ key = key, token = rec.token, state = prev, body = rec.body, attempts = rec.attempts, ambiguous = rec.ambiguous == true, stream = rec.stream or '' })`;

/**
 * One look at the store: take up to ARGV[4] lapsed leases, write this copy's
 * heartbeat, and say when the next lease falls due and how long ago any copy
 * last claimed a delivery, and the oldest gap in serving not swept yet.
 * A take is unacknowledged (`unacked`) until the taker's first renewal: a
 * lapsed lease still unacknowledged (the look's answer never reached its copy,
 * a store slower than the fuse) is taken again without counting a run or a
 * death, so a slow store never turns an answered mention into a dead letter.
 * A lapsed lease whose owner died (claimed or posting) counts that run: when
 * its runs (ARGV[6]; 0: no policy) or its retry window (ARGV[7]) are spent it
 * is dead-lettered here instead of taken, and this look reports it; it is
 * reported again, a lease later, by any look, until a look carries
 * 'told:<key>' (the copy told the owner), so a dead letter is always announced.
 * KEYS: lease set, copies hash, served mark, gaps list, dead set, the month's usage.
 * ARGV: instance, role, lease ms, limit, heartbeat ('' for none), max runs,
 * window ms, dead ttl s, commands this copy sent since its last look (added to
 * the month's count, KEYS[6]), then the keys this copy runs without their lease
 * (never taken by its own look: their lease is kept a lease from now), and
 * 'told:<key>' for each dead letter this copy has told its owner of.
 * Returns {ms until the next lease is due or -1, ms since the last claim or -1,
 * the oldest gap as ms ago "from:to" or '', 1 when the lease set is known
 * whole else 0, Redis's now in ms (the catch-up's clock), the month's commands
 * so far, then takeovers and 'dead:' dead letters, ...}.
 */
export const LOOK_SCRIPT = `${NOW}
${INDEXED}
local runs, window, dead_ttl = tonumber(ARGV[6]) or 0, tonumber(ARGV[7]) or 0, tonumber(ARGV[8]) or 0
local running = {}
for i = 10, #ARGV do
  local k = ARGV[i]
  if string.sub(k, 1, 5) == 'told:' then
    -- A dead letter this copy has told its owner of: reported no more.
    local tk = string.sub(k, 6)
    local traw = redis.call('GET', tk)
    local tok, trec = false, nil
    if traw then tok, trec = pcall(cjson.decode, traw) end
    if tok and type(trec) == 'table' and trec.state == 'dead' then
      if trec.untold then trec.untold = nil; redis.call('SET', tk, cjson.encode(trec), 'KEEPTTL') end
      redis.call('ZREM', KEYS[1], tk)
    end
  else running[k] = true end
end
local out = { -1, -1, '', 0, now, -1 }
local sent = tonumber(ARGV[9]) or 0
if sent > 0 then
  out[6] = redis.call('INCRBY', KEYS[6], sent)
  redis.call('EXPIRE', KEYS[6], ${L.usageTtlSeconds})
else
  out[6] = tonumber(redis.call('GET', KEYS[6])) or 0
end
if redis.call('ZSCORE', KEYS[1], indexed_member) then out[4] = 1 end
local served = tonumber(redis.call('GET', KEYS[3]))
if served then out[2] = math.max(0, now - served) end
local gap = redis.call('LINDEX', KEYS[4], 0)
if gap then
  local a, b = string.match(gap, '^(%d+):(%d+)$')
  if a then out[3] = 'gap:' .. gap .. ':' .. string.format('%d', now) else redis.call('LPOP', KEYS[4]) end
end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
for _, key in ipairs(due) do
  local raw = redis.call('GET', key)
  local ok, rec = false, nil
  if raw then ok, rec = pcall(cjson.decode, raw) end
  if ok and type(rec) == 'table' and rec.state == 'dead' and rec.untold then
    -- A look's dead letter not yet told (that look's answer lost): reported again, a lease from now unless told.
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), key)
    rec.body = nil
    rec.key = key
    out[#out + 1] = 'dead:' .. cjson.encode(rec)
  elseif not ok or type(rec) ~= 'table' or not rec.body or (rec.state ~= 'claimed' and rec.state ~= 'posting' and rec.state ~= 'retry') then
    redis.call('ZREM', KEYS[1], key)
  elseif running[key] then
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), key)
  else
    -- Taken by a look whose taker never renewed it (the look's answer lost, a slow store): no run, no death.
    local unacked = rec.unacked == 1 and rec.state == 'claimed'
    if unacked then rec.attempts = math.max(1, (tonumber(rec.attempts) or 1) - 1) end
    local died = rec.state ~= 'retry' and not unacked
    if died then rec.deaths = (tonumber(rec.deaths) or 0) + 1 end
    local attempts, first = tonumber(rec.attempts) or 1, tonumber(rec.first_at) or now
    if died and runs > 0 and (attempts >= runs or now - first > window) then
      rec.state = 'dead'
      rec.dead_at = now
      rec.reason = string.format('${OWNER_DIED_FORMAT}', rec.deaths)
      rec.untold = 1
      redis.call('SET', key, cjson.encode(rec), 'EX', dead_ttl)
      -- Kept in the lease set until a look says it was told ('told:' ARGV), so a lost answer cannot leave it unannounced.
      redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), key)
      redis.call('ZADD', KEYS[5], now, key)
      redis.call('EXPIRE', KEYS[5], dead_ttl)
      rec.body = nil
      rec.key = key
      out[#out + 1] = 'dead:' .. cjson.encode(rec)
    else
      rec.unacked = 1
      ${TAKE}
    end
  end
end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[2], ARGV[1], ARGV[5]); redis.call('EXPIRE', KEYS[2], ${L.heartbeatTtlSeconds}) end
local nxt = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if nxt[2] and nxt[1] ~= indexed_member then out[1] = math.max(0, tonumber(nxt[2]) - now) end
return out`;

/**
 * A dead letter run again through the lease path: taken by ARGV's owner under
 * a new token, its runs counted afresh. KEYS: lease set, key, dead set.
 * ARGV: instance, role, lease ms. Returns {takeover} or {}.
 */
export const REPLAY_SCRIPT = `${NOW}
local out = {}
local key = KEYS[2]
local raw = redis.call('GET', key)
local ok, rec = false, nil
if raw then ok, rec = pcall(cjson.decode, raw) end
if not ok or type(rec) ~= 'table' or rec.state ~= 'dead' or not rec.body then return out end
redis.call('ZREM', KEYS[3], key)
rec.attempts = 0
rec.deaths = 0
rec.first_at = now
rec.ambiguous = true
${TAKE}
return out`;

/** The newest ARGV[1] dead letters, without their bodies. KEYS: dead set. */
export const DEAD_LIST_SCRIPT = `local out = {}
for _, key in ipairs(redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)) do
  local raw = redis.call('GET', key)
  local ok, rec = false, nil
  if raw then ok, rec = pcall(cjson.decode, raw) end
  if ok and type(rec) == 'table' and rec.state == 'dead' then
    rec.body = nil
    rec.key = key
    out[#out + 1] = cjson.encode(rec)
  else
    redis.call('ZREM', KEYS[1], key)
  end
end
return out`;

/** A dead letter dropped: its body gone, its claim kept a day. KEYS: key, dead set. ARGV: ttl s. Returns 1 or 0. */
export const DROP_SCRIPT = `${RECORD}
if not rec or rec.state ~= 'dead' then return 0 end
rec.state = 'dropped'
rec.body = nil
redis.call('SET', KEYS[1], cjson.encode(rec), 'EX', tonumber(ARGV[1]))
redis.call('ZREM', KEYS[2], KEYS[1])
return 1`;

/**
 * A lock held by `ARGV[1]`. ARGV[2] > 0: take it for that many seconds, or
 * keep it when the holder already has it (a take whose answer was lost and
 * which landed late is still the holder's); 0: let it go, if still held by
 * the holder. KEYS: lock. Returns 1 (taken, kept or let go) or 0 (held by
 * another).
 */
export const LOCK_SCRIPT = `local held = redis.call('GET', KEYS[1])
local ttl = tonumber(ARGV[2])
if ttl == 0 then
  if held == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
  return 0
end
if held and held ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ttl)
return 1`;

/**
 * A value written unless a newer one is kept (an assistant thread's context:
 * two changes handled out of order keep the later). KEYS: the value, its
 * order. ARGV: value, order (digits of one width: Lua compares strings by
 * the locale's collation, which sorts those as numbers), ttl s.
 * A value without an order (written before orders were kept) is older than
 * any. Returns 1 (written) or 0 (a newer one is kept).
 */
export const NOTE_NEWEST_SCRIPT = `local key = KEYS[1]
local order_key = KEYS[2]
local value = ARGV[1]
local order = ARGV[2]
local ttl = tonumber(ARGV[3])
local kept = redis.call('GET', order_key)
if kept and kept > order then return 0 end
redis.call('SET', key, value, 'EX', ttl)
redis.call('SET', order_key, order, 'EX', ttl)
return 1`;

/**
 * A member added to a set that lives `ttl` from its first member (a fixed
 * window, not a sliding one). KEYS: the set. ARGV: member, ttl s. Returns
 * how many members the set holds now (a member added twice counts once).
 */
export const TALLY_SCRIPT = `local set = KEYS[1]
local member = ARGV[1]
local ttl = tonumber(ARGV[2])
redis.call('SADD', set, member)
if redis.call('TTL', set) < 0 then redis.call('EXPIRE', set, ttl) end
return redis.call('SCARD', set)`;

/**
 * One step's result kept with its turn (ctx.step): the field written and the
 * hash's life set to the claim's, in one command, only while the turn's
 * record still holds this token, live (a copy that lost the turn never
 * overwrites what the taker-over kept). A record that is not there at all
 * (flushed, evicted) is nobody else's: the step is kept, and its owner
 * writes the claim again. KEYS: steps hash, the turn's claim key.
 * ARGV: name, result, ttl s, token ('' for a turn without a lease: its claim
 * failed open, nothing to fence with). Returns 1 kept, 0 lost.
 */
export const KEEP_STEP_SCRIPT = `local steps = KEYS[1]
local name = ARGV[1]
local result = ARGV[2]
local ttl = tonumber(ARGV[3])
if ARGV[4] ~= '' then
  local raw = redis.call('GET', KEYS[2])
  if raw then
    local ok, rec = pcall(cjson.decode, raw)
    if not ok or type(rec) ~= 'table' or tonumber(rec.token) ~= tonumber(ARGV[4]) or (rec.state ~= 'claimed' and rec.state ~= 'posting') then return 0 end
  end
end
redis.call('HSET', steps, name, result)
redis.call('EXPIRE', steps, ttl)
return 1`;

/**
 * A turn takes its place in its conversation (lib/conversation): one command
 * per look. KEYS: the conversation's order (a sorted set of turn keys, by
 * the store's time of their claims: a copy slow to look after its claim
 * keeps its place), its skipped set, its admitted set (turns that went).
 * ARGV: this turn's key, the most turns that may wait, the keys' ttl s.
 * A turn goes when no live turn (claimed, posting, or waiting for a retry) is
 * ahead of it and none has gone before it (one that went is not overtaken by
 * an earlier claim that looked late); one that went goes again at once (a
 * takeover of a running turn). The turns that are no longer live are dropped
 * on the way, so a finish costs nothing here. Past the bound the oldest
 * waiting turn is marked skipped (its owner answers it with a short note).
 * With ARGV[4] '1' (the bot's concurrency is `interrupt`) a turn that has not
 * gone marks the running turns before it interrupted (KEYS[4], read by their
 * owners: CONVERSATION_INTERRUPTED_SCRIPT) and the waiting ones before it
 * skipped: the newest message is the one answered.
 * Returns {'go' | 'wait' | 'skipped', turns ahead, the key skipped now or '', turns marked interrupted}.
 */
export const CONVERSATION_SCRIPT = `${NOW}
local me = ARGV[1]
local ttl = tonumber(ARGV[3])
if redis.call('SISMEMBER', KEYS[2], me) == 1 then return {'skipped', '0', ''} end
-- In claim order: the store's time of the turn's claim (its record's first_at), else now.
local place = now
local mine = redis.call('GET', me)
if mine then
  local ok, rec = pcall(cjson.decode, mine)
  if ok and type(rec) == 'table' and tonumber(rec.first_at) then place = tonumber(rec.first_at) end
end
-- A score Redis takes whole: a number cjson decoded may not pass as an integer.
redis.call('ZADD', KEYS[1], 'NX', string.format('%d', place), me)
local gone = redis.call('SISMEMBER', KEYS[3], me) == 1
local interrupt = ARGV[4] == '1' and not gone
local running, waiting, before, marked = 0, {}, true, 0
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if m == me then before = false
  else
    ${MEMBER_LIVE('    ')}
    if not live then redis.call('ZREM', KEYS[1], m); redis.call('SREM', KEYS[3], m); redis.call('SREM', KEYS[4], m)
    elseif redis.call('SISMEMBER', KEYS[3], m) == 1 then
      running = running + 1
      if interrupt and before then redis.call('SADD', KEYS[4], m); marked = marked + 1 end
    elseif before then waiting[#waiting + 1] = m end
  end
end
if marked > 0 then redis.call('EXPIRE', KEYS[4], ttl) end
local skipped = ''
local bound = tonumber(ARGV[2])
if interrupt then bound = 1 end
while not gone and #waiting >= bound and #waiting > 0 do
  skipped = table.remove(waiting, 1)
  redis.call('SADD', KEYS[2], skipped)
  redis.call('EXPIRE', KEYS[2], ttl)
  redis.call('ZREM', KEYS[1], skipped)
  if not interrupt then break end
end
local ahead = running + #waiting
if gone or ahead == 0 then
  redis.call('SADD', KEYS[3], me)
  redis.call('EXPIRE', KEYS[3], ttl)
end
redis.call('EXPIRE', KEYS[1], ttl)
return {(gone or ahead == 0) and 'go' or 'wait', tostring((gone and 0) or ahead), skipped, tostring(marked)}`;

/** Whether the running turn ARGV[1] was marked interrupted in its conversation (CONVERSATION_SCRIPT). KEYS: the interrupted set. Returns 1 or 0. */
export const CONVERSATION_INTERRUPTED_SCRIPT = `return redis.call('SISMEMBER', KEYS[1], ARGV[1])`;
