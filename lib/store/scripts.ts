/**
 * Every store operation that must be atomic, as a Redis script. Time is
 * Redis's own (TIME), so the copies' clocks never have to agree. Replies are
 * integers or strings the script builds: never a status reply such as `OK`,
 * whose base64 encoding inside an array the REST API leaves undocumented.
 *
 * Each script names its KEYS and ARGV once (lib/store/script.ts): its Lua
 * opens with a local per name, and its caller passes each by name.
 */
import { LEASES_INDEXED, LEASES_INDEXED_SCORE } from './keys.js';
import { OWNER_DIED_FORMAT } from './lease.js';
import { STORE_LIMITS as L } from './limits.js';
import { defineScript } from './script.js';

const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** Decode the record at `key`; `rec` is nil when absent or unreadable. */
const record = (key: string) => `local raw = redis.call('GET', ${key})
local rec = nil
if raw then local ok, v = pcall(cjson.decode, raw); if ok and type(v) == 'table' then rec = v end end`;

/**
 * The record at `claimKey`, live and held by `token` (a number), or the
 * script returns 0 (lost). A record that is not there at all (flushed,
 * evicted) answers `missing` (2 unless the script says): nobody else holds
 * the turn, and its owner writes it again.
 */
const ownedOrMissing = (missing = 2) => `${record('claimKey')}
if not raw then return ${missing} end
if not rec or tonumber(rec.token) ~= token or (rec.state ~= 'claimed' and rec.state ~= 'posting') then return 0 end`;

/** The lease set's "known whole" member and its score (keys.ts). */
const INDEXED = `local indexed_member, indexed_score = '${LEASES_INDEXED}', ${LEASES_INDEXED_SCORE}`;

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

/** Open shared rate-limit windows (the hash `windows`), flattened after `out[1]`; closed ones are dropped. */
const WINDOWS = `local win = redis.call('HGETALL', windows)
for i = 1, #win, 2 do
  if tonumber(win[i + 1]) and tonumber(win[i + 1]) > now then out[#out + 1] = win[i]; out[#out + 1] = win[i + 1]
  else redis.call('HDEL', windows, win[i]) end
end`;

/*
 * The claim, in named parts (CLAIM_SCRIPT joins them in this order).
 */

/**
 * Which of the rest of KEYS are the delivery's claim keys (the primary
 * first), and which its conversation's: with `placed`, the order follows
 * them; with `looks` too, its skipped, admitted and interrupted sets.
 */
const CLAIM_LAYOUT = `-- layout: which of the rest of KEYS are the claim keys, which the conversation's
local placed = inOrder == '1'
local looks = placed and firstLook == '1'
local claimCount = #KEYS - claimKeysFrom + 1
if placed then claimCount = claimCount - 1 end
if looks then claimCount = claimCount - 3 end
local primaryKey = KEYS[claimKeysFrom]
local lastClaimKey = claimKeysFrom + claimCount - 1
local order, skippedSet, admittedSet, interruptedSet = KEYS[lastClaimKey + 1], KEYS[lastClaimKey + 2], KEYS[lastClaimKey + 3], KEYS[lastClaimKey + 4]`;

/** Held already? The first claim key found answers 'mine' (this nonce's own earlier write) or 'held:<holder nonce>'. */
const CLAIM_HELD = `-- held: is any claim key taken?
for i = claimKeysFrom, lastClaimKey do
  local raw = redis.call('GET', KEYS[i])
  if raw then
    local ok, rec = pcall(cjson.decode, raw)
    local holder = (ok and type(rec) == 'table' and type(rec.nonce) == 'string') and rec.nonce or '?'
    out[1] = (holder == nonce) and 'mine' or ('held:' .. holder)
    break
  end
end`;

/**
 * A leased claim: its record stamped with the store's time, its lease due,
 * and (placed) its place in its conversation's order, and (looks) the turn's
 * first look there, admitted when alone (as CONVERSATION_SCRIPT would).
 */
const CLAIM_LEASE = `-- lease: due a lease from now; placed in its conversation's order; its first look there
if leaseMs > 0 then
  local rec = cjson.decode(primaryRecord); rec.first_at = now; primary = cjson.encode(rec)
  redis.call('ZADD', leases, now + leaseMs, primaryKey)
  if placed then
    redis.call('ZADD', order, 'NX', string.format('%d', now), primaryKey)
    redis.call('EXPIRE', order, ${L.conversationTtlSeconds})
    -- The turn's first look, for a turn alone in its order (CONVERSATION_SCRIPT would admit it as this does).
    if looks and redis.call('SISMEMBER', skippedSet, primaryKey) == 0 then
      local ended = {}
      go = true
      for _, m in ipairs(redis.call('ZRANGE', order, 0, -1)) do
        if m ~= primaryKey then
          ${MEMBER_LIVE('          ')}
          if live then go = false; break end
          ended[#ended + 1] = m
        end
      end
      if go then
        for _, m in ipairs(ended) do redis.call('ZREM', order, m); redis.call('SREM', admittedSet, m); redis.call('SREM', interruptedSet, m) end
        redis.call('SADD', admittedSet, primaryKey)
        redis.call('EXPIRE', admittedSet, ${L.conversationTtlSeconds})
      end
    end
  end
end`;

/** Every claim key written: the primary record at the first, the alias record at the others. */
const CLAIM_WRITE = `-- write: every claim key, all or none
for i = claimKeysFrom, lastClaimKey do redis.call('SET', KEYS[i], i == claimKeysFrom and primary or aliasRecord, 'EX', ttl) end`;

/** The served mark moved to now; a silence longer than `gapMs` before it is kept as a gap for the catch-up sweep. */
const CLAIM_SERVED = `-- served: the mark, and the gap before it
local prev = tonumber(redis.call('GET', servedMark))
local gap = gapMs or 0
if prev and gap > 0 and now - prev > gap then
  redis.call('RPUSH', gapList, string.format('%d:%d', prev, now))
  redis.call('LTRIM', gapList, -${L.gapsKept}, -1)
  redis.call('EXPIRE', gapList, ${L.gapsTtlSeconds})
end
redis.call('SET', servedMark, now, 'EX', ${L.servedTtlSeconds})`;

/**
 * A delivery claimed once: all its claim keys or none. KEYS: the lease set,
 * the windows hash, the served mark, the gaps list, then the claim keys
 * (primary first) and, with `inOrder` '1', the order of the conversation the
 * delivery belongs to, then (with `firstLook` '1' too) its skipped, admitted
 * and interrupted sets.
 * A leased claim with an order takes its place there in the same command
 * (the primary key at the claim's time, as CONVERSATION_SCRIPT's first look
 * would), so a message claimed before a follow-up stays ahead of it even if
 * its copy dies before that look.
 * With `firstLook` '1', a turn so placed and alone in its order (not skipped,
 * no other member live: the ended ones dropped on the way) is admitted here,
 * exactly as that first look would admit it (into the admitted set, which
 * lasts as the order does), and the reply says 'go': its copy's gate does
 * not look (one command less a mention). Any other turn's gate looks as before.
 * `gapMs`: a silence longer than this is recorded as a gap for the catch-up
 * sweep (0: none). `leaseMs` 0: no lease.
 * Returns {'claimed' | 'mine' | 'held:<holder nonce>', 'go' when admitted, window field, reopen ms, ...}.
 */
export const CLAIM_SCRIPT = defineScript({
  keys: ['leases', 'windows', 'servedMark', 'gapList'],
  restKeys: 'claimKeys',
  args: {
    primaryRecord: 'string',
    aliasRecord: 'string',
    ttl: 'number',
    leaseMs: 'number',
    nonce: 'string',
    gapMs: 'number',
    inOrder: 'string',
    firstLook: 'string',
  },
  body: `${NOW}
${CLAIM_LAYOUT}
local out = {}
local go = false
${CLAIM_HELD}
if not out[1] then
local primary = primaryRecord
${CLAIM_LEASE}
${CLAIM_WRITE}
${CLAIM_SERVED}
out[1] = 'claimed'
if go then out[2] = 'go' end
end
${WINDOWS}
return out`,
});

/**
 * A leased claim that timed out at its copy, asked about once the store
 * answers: did it land? Returns 'mine' (landed, live, still token 1: its
 * lease is kept from now), 'lost' (landed, then taken over or ended), 'held'
 * (another claim's) or 'absent' (never landed).
 */
export const CONFIRM_SCRIPT = defineScript({
  keys: ['claimKey', 'leases'],
  args: { nonce: 'string', leaseMs: 'number' },
  body: `${NOW}
${record('claimKey')}
if not raw then return 'absent' end
if not rec or rec.nonce ~= nonce then return 'held' end
if tonumber(rec.token) ~= 1 or (rec.state ~= 'claimed' and rec.state ~= 'posting') then return 'lost' end
redis.call('ZADD', leases, now + leaseMs, claimKey)
return 'mine'`,
});

/**
 * Leases renewed. The rest of KEYS: each lease's key; the rest of ARGV: per
 * lease its token and how much of its streamed reply Slack has confirmed (''
 * when it streams nothing). Returns 1 (renewed), 0 (lost) or 2 (missing: no
 * record at all) per lease. A renewal acknowledges a look's take (`unacked`
 * cleared): from then a lapse of it is its owner's death.
 */
export const RENEW_SCRIPT = defineScript({
  keys: ['leases'],
  restKeys: 'leaseKeys',
  args: { leaseMs: 'number' },
  restArgs: 'tokenAndConfirmed',
  body: `${NOW}
local out = {}
for i = leaseKeysFrom, #KEYS do
  local raw = redis.call('GET', KEYS[i])
  local ok, rec = false, nil
  if raw then ok, rec = pcall(cjson.decode, raw) end
  local pair = tokenAndConfirmedFrom + 2 * (i - leaseKeysFrom)
  local token = ARGV[pair]
  local confirmed = ARGV[pair + 1]
  if not raw then out[#out + 1] = 2
  elseif ok and type(rec) == 'table' and tonumber(rec.token) == tonumber(token) and (rec.state == 'claimed' or rec.state == 'posting') then
    redis.call('ZADD', leases, now + leaseMs, KEYS[i]); out[#out + 1] = 1
    local changed = rec.unacked ~= nil
    rec.unacked = nil
    if confirmed ~= '' and tonumber(confirmed) ~= tonumber(rec.stream_confirmed) then
      rec.stream_confirmed = tonumber(confirmed)
      changed = true
    end
    if changed then redis.call('SET', KEYS[i], cjson.encode(rec), 'KEEPTTL') end
  else out[#out + 1] = 0 end
end
return out`,
});

/** -> posting, with the current token only. Returns 1, 0 lost, 2 missing. */
export const COMMIT_SCRIPT = defineScript({
  keys: ['claimKey', 'leases'],
  args: { token: 'number', leaseMs: 'number' },
  body: `${ownedOrMissing()}
${NOW}
rec.state = 'posting'
redis.call('SET', claimKey, cjson.encode(rec), 'KEEPTTL')
redis.call('ZADD', leases, now + leaseMs, claimKey)
return 1`,
});

/**
 * A streamed reply started: its message's ts is this turn's, so a taker-over
 * completes that message instead of adding a second. Returns 1, 0 lost, 2 missing.
 */
export const STREAM_SCRIPT = defineScript({
  keys: ['claimKey'],
  args: { token: 'number', ts: 'string' },
  body: `${ownedOrMissing()}
rec.stream = ts
redis.call('SET', claimKey, cjson.encode(rec), 'KEEPTTL')
return 1`,
});

/**
 * The owner writes its forgotten claim again: only where the key is absent
 * (or already holds this token, live: a restore whose answer was lost), back
 * into the lease set, and each message alias that is gone re-created (the
 * rest of KEYS). `record`'s first_at is set here. Returns 1 (written or
 * already ours) or 0 (another record is there).
 */
export const RESTORE_SCRIPT = defineScript({
  keys: ['claimKey', 'leases'],
  restKeys: 'aliasKeys',
  args: { token: 'number', record: 'string', aliasRecord: 'string', ttl: 'number', leaseMs: 'number' },
  body: `${NOW}
${record('claimKey')}
if raw then
  if not rec or tonumber(rec.token) ~= token or (rec.state ~= 'claimed' and rec.state ~= 'posting') then return 0 end
else
  local fresh = cjson.decode(record)
  fresh.first_at = now
  redis.call('SET', claimKey, cjson.encode(fresh), 'EX', ttl)
end
redis.call('ZADD', leases, now + leaseMs, claimKey)
for i = aliasKeysFrom, #KEYS do redis.call('SET', KEYS[i], aliasRecord, 'EX', ttl, 'NX') end
return 1`,
});

/**
 * Rebuilding a lost lease set from the records a scan found (the rest of
 * KEYS): each live turn not in the set goes back in, due a lease from now
 * (its owner, if alive, renews it before then; if dead, it is taken over
 * then). On the scan's last page (`complete` '1') the set is marked whole.
 * Returns how many went back in.
 */
export const REINDEX_SCRIPT = defineScript({
  keys: ['leases'],
  restKeys: 'recordKeys',
  args: { leaseMs: 'number', complete: 'string' },
  body: `${NOW}
${INDEXED}
local added = 0
for i = recordKeysFrom, #KEYS do
  if not redis.call('ZSCORE', leases, KEYS[i]) then
    local raw = redis.call('GET', KEYS[i])
    local ok, rec = false, nil
    if raw then ok, rec = pcall(cjson.decode, raw) end
    if ok and type(rec) == 'table' and rec.body and (rec.state == 'claimed' or rec.state == 'posting' or rec.state == 'retry') then
      redis.call('ZADD', leases, now + leaseMs, KEYS[i]); added = added + 1
    end
  end
end
if complete == '1' then redis.call('ZADD', leases, indexed_score, indexed_member) end
return added`,
});

/** The turn's line (`turnLine`, '' for none) on the status page's list `turnLines`, pushed in the same round trip. */
const TURN_RECORD = `if turnLine ~= '' then
  redis.call('LPUSH', turnLines, turnLine); redis.call('LTRIM', turnLines, 0, ${L.turnLines - 1}); redis.call('EXPIRE', turnLines, ${L.listTtlSeconds})
end`;

/**
 * -> done: the body dropped, the reply's ts kept ('' for none), the lease
 * gone, and the status page's lines written (`byCloud` '1': served by the
 * cloud copy, at `at`, an ISO time). Returns 1, 0 lost, 2 missing.
 */
export const FINISH_SCRIPT = defineScript({
  keys: ['claimKey', 'leases', 'turnLines', 'failoverLines', 'cloudLastServed'],
  args: { token: 'number', replyTs: 'string', ttl: 'number', turnLine: 'string', byCloud: 'string', at: 'string' },
  body: `${ownedOrMissing()}
rec.state = 'done'
rec.body = nil
if replyTs ~= '' then rec.reply_ts = replyTs end
redis.call('SET', claimKey, cjson.encode(rec), 'EX', ttl)
redis.call('ZREM', leases, claimKey)
${TURN_RECORD}
if byCloud == '1' then
  redis.call('LPUSH', failoverLines, at); redis.call('LTRIM', failoverLines, 0, ${L.failoverLines - 1}); redis.call('EXPIRE', failoverLines, ${L.listTtlSeconds})
  redis.call('SET', cloudLastServed, at, 'EX', ${L.cloudServedTtlSeconds})
end
return 1`,
});

/** Dead-letter the record `rec` (owned, decoded), kept `deadTtl` s. Needs KEYS claimKey, leases, deadSet, turnLines; ARGV deadTtl, turnLine. */
const TO_DEAD = `rec.state = 'dead'
rec.dead_at = now
redis.call('SET', claimKey, cjson.encode(rec), 'EX', deadTtl)
redis.call('ZREM', leases, claimKey)
redis.call('ZADD', deadSet, now, claimKey)
redis.call('EXPIRE', deadSet, deadTtl)
${TURN_RECORD}`;

/**
 * A failed turn handed back: another run after `delayMs`, or a dead letter
 * when its runs (`maxRuns`) or its time (`windowMs`) are spent. `ambiguous`
 * and `freeRun` ('1': this run is not counted) are '1' or '0'; `turnLine` is
 * written for a dead letter. Returns 1 retry, 2 dead, 0 lost, 3 missing.
 */
export const RELEASE_SCRIPT = defineScript({
  keys: ['claimKey', 'leases', 'deadSet', 'turnLines'],
  args: {
    token: 'number',
    delayMs: 'number',
    reason: 'string',
    ambiguous: 'string',
    maxRuns: 'number',
    windowMs: 'number',
    deadTtl: 'number',
    turnLine: 'string',
    freeRun: 'string',
  },
  body: `${ownedOrMissing(3)}
${NOW}
local attempts = tonumber(rec.attempts) or 1
local first = tonumber(rec.first_at) or now
rec.reason = reason
rec.ambiguous = ambiguous == '1'
local free = freeRun == '1'
if (not free and attempts >= maxRuns) or now + delayMs - first > windowMs then
  ${TO_DEAD}
  return 2
end
rec.state = 'retry'
-- A free run is taken back: the next take counts it again.
if free then rec.attempts = attempts - 1 end
redis.call('SET', claimKey, cjson.encode(rec), 'KEEPTTL')
redis.call('ZADD', leases, now + delayMs, claimKey)
return 1`,
});

/** A turn that can never succeed: dead at once. Returns 1, 0 lost, 2 missing. */
export const DEAD_SCRIPT = defineScript({
  keys: ['claimKey', 'leases', 'deadSet', 'turnLines'],
  args: { token: 'number', reason: 'string', deadTtl: 'number', turnLine: 'string' },
  body: `${ownedOrMissing()}
${NOW}
rec.reason = reason
${TO_DEAD}
return 1`,
});

/** Take `rec` at `key` (a local) for `instance`/`role`, due a lease from now; appends the takeover to `out`. */
const TAKE = (key: string) => `local prev = rec.state
rec.token = tonumber(rec.token) + 1
rec.instance = instance
rec.role = role
rec.attempts = (tonumber(rec.attempts) or 1) + 1
rec.state = 'claimed'
redis.call('SET', ${key}, cjson.encode(rec), 'KEEPTTL')
redis.call('ZADD', leases, now + leaseMs, ${key})
out[#out + 1] = cjson.encode({ key = ${key}, token = rec.token, state = prev, body = rec.body, attempts = rec.attempts, ambiguous = rec.ambiguous == true, stream = rec.stream or '' })`;

/**
 * One look at the store: take up to `limit` lapsed leases, write this copy's
 * heartbeat (`heartbeat`, '' for none), and say when the next lease falls
 * due and how long ago any copy last claimed a delivery, and the oldest gap
 * in serving not swept yet.
 * A take is unacknowledged (`unacked`) until the taker's first renewal: a
 * lapsed lease still unacknowledged (the look's answer never reached its copy,
 * a store slower than the fuse) is taken again without counting a run or a
 * death, so a slow store never turns an answered mention into a dead letter.
 * A lapsed lease whose owner died (claimed or posting) counts that run: when
 * its runs (`maxRuns`; 0: no policy) or its retry window (`windowMs`) are
 * spent it is dead-lettered here instead of taken, and this look reports it;
 * it is reported again, a lease later, by any look, until a look carries
 * 'told:<key>' (the copy told the owner), so a dead letter is always announced.
 * `sent`: commands this copy sent since its last look (added to the month's
 * count, `usage`). The rest of ARGV: the keys this copy runs without their
 * lease (never taken by its own look: their lease is kept a lease from now),
 * and 'told:<key>' for each dead letter this copy has told its owner of.
 * Returns {ms until the next lease is due or -1, ms since the last claim or -1,
 * the oldest gap as ms ago "from:to" or '', 1 when the lease set is known
 * whole else 0, Redis's now in ms (the catch-up's clock), the month's commands
 * so far, then takeovers and 'dead:' dead letters, ...}.
 */
export const LOOK_SCRIPT = defineScript({
  keys: ['leases', 'copies', 'servedMark', 'gapList', 'deadSet', 'usage'],
  args: {
    instance: 'string',
    role: 'string',
    leaseMs: 'number',
    limit: 'number',
    heartbeat: 'string',
    maxRuns: 'number',
    windowMs: 'number',
    deadTtl: 'number',
    sent: 'number',
  },
  restArgs: 'runningOrTold',
  body: `${NOW}
${INDEXED}
maxRuns, windowMs, deadTtl, sent = maxRuns or 0, windowMs or 0, deadTtl or 0, sent or 0
local running = {}
for i = runningOrToldFrom, #ARGV do
  local k = ARGV[i]
  if string.sub(k, 1, 5) == 'told:' then
    -- A dead letter this copy has told its owner of: reported no more.
    local tk = string.sub(k, 6)
    local traw = redis.call('GET', tk)
    local tok, trec = false, nil
    if traw then tok, trec = pcall(cjson.decode, traw) end
    if tok and type(trec) == 'table' and trec.state == 'dead' then
      if trec.untold then trec.untold = nil; redis.call('SET', tk, cjson.encode(trec), 'KEEPTTL') end
      redis.call('ZREM', leases, tk)
    end
  else running[k] = true end
end
local out = { -1, -1, '', 0, now, -1 }
if sent > 0 then
  out[6] = redis.call('INCRBY', usage, sent)
  redis.call('EXPIRE', usage, ${L.usageTtlSeconds})
else
  out[6] = tonumber(redis.call('GET', usage)) or 0
end
if redis.call('ZSCORE', leases, indexed_member) then out[4] = 1 end
local served = tonumber(redis.call('GET', servedMark))
if served then out[2] = math.max(0, now - served) end
local gap = redis.call('LINDEX', gapList, 0)
if gap then
  local a, b = string.match(gap, '^(%d+):(%d+)$')
  if a then out[3] = 'gap:' .. gap .. ':' .. string.format('%d', now) else redis.call('LPOP', gapList) end
end
local due = redis.call('ZRANGEBYSCORE', leases, '-inf', now, 'LIMIT', 0, limit)
for _, key in ipairs(due) do
  local raw = redis.call('GET', key)
  local ok, rec = false, nil
  if raw then ok, rec = pcall(cjson.decode, raw) end
  if ok and type(rec) == 'table' and rec.state == 'dead' and rec.untold then
    -- A look's dead letter not yet told (that look's answer lost): reported again, a lease from now unless told.
    redis.call('ZADD', leases, now + leaseMs, key)
    rec.body = nil
    rec.key = key
    out[#out + 1] = 'dead:' .. cjson.encode(rec)
  elseif not ok or type(rec) ~= 'table' or not rec.body or (rec.state ~= 'claimed' and rec.state ~= 'posting' and rec.state ~= 'retry') then
    redis.call('ZREM', leases, key)
  elseif running[key] then
    redis.call('ZADD', leases, now + leaseMs, key)
  else
    -- Taken by a look whose taker never renewed it (the look's answer lost, a slow store): no run, no death.
    local unacked = rec.unacked == 1 and rec.state == 'claimed'
    if unacked then rec.attempts = math.max(1, (tonumber(rec.attempts) or 1) - 1) end
    local died = rec.state ~= 'retry' and not unacked
    if died then rec.deaths = (tonumber(rec.deaths) or 0) + 1 end
    local attempts, first = tonumber(rec.attempts) or 1, tonumber(rec.first_at) or now
    if died and maxRuns > 0 and (attempts >= maxRuns or now - first > windowMs) then
      rec.state = 'dead'
      rec.dead_at = now
      rec.reason = string.format('${OWNER_DIED_FORMAT}', rec.deaths)
      rec.untold = 1
      redis.call('SET', key, cjson.encode(rec), 'EX', deadTtl)
      -- Kept in the lease set until a look says it was told ('told:' ARGV), so a lost answer cannot leave it unannounced.
      redis.call('ZADD', leases, now + leaseMs, key)
      redis.call('ZADD', deadSet, now, key)
      redis.call('EXPIRE', deadSet, deadTtl)
      rec.body = nil
      rec.key = key
      out[#out + 1] = 'dead:' .. cjson.encode(rec)
    else
      rec.unacked = 1
      ${TAKE('key')}
    end
  end
end
if heartbeat ~= '' then redis.call('HSET', copies, instance, heartbeat); redis.call('EXPIRE', copies, ${L.heartbeatTtlSeconds}) end
local nxt = redis.call('ZRANGE', leases, 0, 0, 'WITHSCORES')
if nxt[2] and nxt[1] ~= indexed_member then out[1] = math.max(0, tonumber(nxt[2]) - now) end
return out`,
});

/**
 * A dead letter run again through the lease path: taken by `instance` under
 * a new token, its runs counted afresh. Returns {takeover} or {}.
 */
export const REPLAY_SCRIPT = defineScript({
  keys: ['leases', 'claimKey', 'deadSet'],
  args: { instance: 'string', role: 'string', leaseMs: 'number' },
  body: `${NOW}
local out = {}
local raw = redis.call('GET', claimKey)
local ok, rec = false, nil
if raw then ok, rec = pcall(cjson.decode, raw) end
if not ok or type(rec) ~= 'table' or rec.state ~= 'dead' or not rec.body then return out end
redis.call('ZREM', deadSet, claimKey)
rec.attempts = 0
rec.deaths = 0
rec.first_at = now
rec.ambiguous = true
${TAKE('claimKey')}
return out`,
});

/** The newest `limit` dead letters, without their bodies. */
export const DEAD_LIST_SCRIPT = defineScript({
  keys: ['deadSet'],
  args: { limit: 'number' },
  body: `local out = {}
for _, key in ipairs(redis.call('ZREVRANGE', deadSet, 0, limit - 1)) do
  local raw = redis.call('GET', key)
  local ok, rec = false, nil
  if raw then ok, rec = pcall(cjson.decode, raw) end
  if ok and type(rec) == 'table' and rec.state == 'dead' then
    rec.body = nil
    rec.key = key
    out[#out + 1] = cjson.encode(rec)
  else
    redis.call('ZREM', deadSet, key)
  end
end
return out`,
});

/** A dead letter dropped: its body gone, its claim kept `ttl` s. Returns 1 or 0. */
export const DROP_SCRIPT = defineScript({
  keys: ['claimKey', 'deadSet'],
  args: { ttl: 'number' },
  body: `${record('claimKey')}
if not rec or rec.state ~= 'dead' then return 0 end
rec.state = 'dropped'
rec.body = nil
redis.call('SET', claimKey, cjson.encode(rec), 'EX', ttl)
redis.call('ZREM', deadSet, claimKey)
return 1`,
});

/**
 * A lock held by `holder`. `ttl` > 0: take it for that many seconds, or
 * keep it when the holder already has it (a take whose answer was lost and
 * which landed late is still the holder's); 0: let it go, if still held by
 * the holder. Returns 1 (taken, kept or let go) or 0 (held by another).
 */
export const LOCK_SCRIPT = defineScript({
  keys: ['lock'],
  args: { holder: 'string', ttl: 'number' },
  body: `local held = redis.call('GET', lock)
if ttl == 0 then
  if held == holder then redis.call('DEL', lock) return 1 end
  return 0
end
if held and held ~= holder then return 0 end
redis.call('SET', lock, holder, 'EX', ttl)
return 1`,
});

/**
 * A value written unless a newer one is kept (an assistant thread's context:
 * two changes handled out of order keep the later). `order`: digits of one
 * width (Lua compares strings by the locale's collation, which sorts those
 * as numbers). A value without an order (written before orders were kept)
 * is older than any. Returns 1 (written) or 0 (a newer one is kept).
 */
export const NOTE_NEWEST_SCRIPT = defineScript({
  keys: ['valueKey', 'orderKey'],
  args: { value: 'string', order: 'string', ttl: 'number' },
  body: `local kept = redis.call('GET', orderKey)
if kept and kept > order then return 0 end
redis.call('SET', valueKey, value, 'EX', ttl)
redis.call('SET', orderKey, order, 'EX', ttl)
return 1`,
});

/**
 * A member added to a set that lives `ttl` s from its first member (a fixed
 * window, not a sliding one). Returns how many members the set holds now (a
 * member added twice counts once).
 */
export const TALLY_SCRIPT = defineScript({
  keys: ['set'],
  args: { member: 'string', ttl: 'number' },
  body: `redis.call('SADD', set, member)
if redis.call('TTL', set) < 0 then redis.call('EXPIRE', set, ttl) end
return redis.call('SCARD', set)`,
});

/**
 * One step's result kept with its turn (ctx.step): the field written and the
 * hash's life set to the claim's, in one command, only while the turn's
 * record (`claimKey`) still holds `token`, live (a copy that lost the turn
 * never overwrites what the taker-over kept). A record that is not there at
 * all (flushed, evicted) is nobody else's: the step is kept, and its owner
 * writes the claim again. `token` '': a turn without a lease (its claim
 * failed open, nothing to fence with). Returns 1 kept, 0 lost.
 */
export const KEEP_STEP_SCRIPT = defineScript({
  keys: ['steps', 'claimKey'],
  args: { name: 'string', result: 'string', ttl: 'number', token: 'string' },
  body: `if token ~= '' then
  local raw = redis.call('GET', claimKey)
  if raw then
    local ok, rec = pcall(cjson.decode, raw)
    if not ok or type(rec) ~= 'table' or tonumber(rec.token) ~= tonumber(token) or (rec.state ~= 'claimed' and rec.state ~= 'posting') then return 0 end
  end
end
redis.call('HSET', steps, name, result)
redis.call('EXPIRE', steps, ttl)
return 1`,
});

/**
 * A turn (`me`, its key) takes its place in its conversation
 * (lib/conversation): one command per look. `order` is a sorted set of turn
 * keys, by the store's time of their claims (a copy slow to look after its
 * claim keeps its place); the admitted set holds the turns that went.
 * A turn goes when no live turn (claimed, posting, or waiting for a retry) is
 * ahead of it and none has gone before it (one that went is not overtaken by
 * an earlier claim that looked late); one that went goes again at once (a
 * takeover of a running turn). The turns that are no longer live are dropped
 * on the way, so a finish costs nothing here. Past `maxWaiting` the oldest
 * waiting turn is marked skipped (its owner answers it with a short note).
 * With `interrupts` '1' (the bot's concurrency is `interrupt`) a turn that
 * has not gone marks the running turns before it interrupted (read by their
 * owners: CONVERSATION_INTERRUPTED_SCRIPT) and the waiting ones before it
 * skipped: the newest message is the one answered.
 * Returns {'go' | 'wait' | 'skipped', turns ahead, the key skipped now or '', turns marked interrupted}.
 */
export const CONVERSATION_SCRIPT = defineScript({
  keys: ['order', 'skippedSet', 'admittedSet', 'interruptedSet'],
  args: { me: 'string', maxWaiting: 'number', ttl: 'number', interrupts: 'string' },
  body: `${NOW}
if redis.call('SISMEMBER', skippedSet, me) == 1 then return {'skipped', '0', ''} end
-- In claim order: the store's time of the turn's claim (its record's first_at), else now.
local place = now
local mine = redis.call('GET', me)
if mine then
  local ok, rec = pcall(cjson.decode, mine)
  if ok and type(rec) == 'table' and tonumber(rec.first_at) then place = tonumber(rec.first_at) end
end
-- A score Redis takes whole: a number cjson decoded may not pass as an integer.
redis.call('ZADD', order, 'NX', string.format('%d', place), me)
local gone = redis.call('SISMEMBER', admittedSet, me) == 1
local interrupt = interrupts == '1' and not gone
local running, waiting, before, marked = 0, {}, true, 0
for _, m in ipairs(redis.call('ZRANGE', order, 0, -1)) do
  if m == me then before = false
  else
    ${MEMBER_LIVE('    ')}
    if not live then redis.call('ZREM', order, m); redis.call('SREM', admittedSet, m); redis.call('SREM', interruptedSet, m)
    elseif redis.call('SISMEMBER', admittedSet, m) == 1 then
      running = running + 1
      if interrupt and before then redis.call('SADD', interruptedSet, m); marked = marked + 1 end
    elseif before then waiting[#waiting + 1] = m end
  end
end
if marked > 0 then redis.call('EXPIRE', interruptedSet, ttl) end
local skipped = ''
local bound = maxWaiting
if interrupt then bound = 1 end
while not gone and #waiting >= bound and #waiting > 0 do
  skipped = table.remove(waiting, 1)
  redis.call('SADD', skippedSet, skipped)
  redis.call('EXPIRE', skippedSet, ttl)
  redis.call('ZREM', order, skipped)
  if not interrupt then break end
end
local ahead = running + #waiting
if gone or ahead == 0 then
  redis.call('SADD', admittedSet, me)
  redis.call('EXPIRE', admittedSet, ttl)
end
redis.call('EXPIRE', order, ttl)
return {(gone or ahead == 0) and 'go' or 'wait', tostring((gone and 0) or ahead), skipped, tostring(marked)}`,
});

/** Whether the running turn `turnKey` was marked interrupted in its conversation (CONVERSATION_SCRIPT). Returns 1 or 0. */
export const CONVERSATION_INTERRUPTED_SCRIPT = defineScript({
  keys: ['interruptedSet'],
  args: { turnKey: 'string' },
  body: `return redis.call('SISMEMBER', interruptedSet, turnKey)`,
});
