/// The Lua scripts the fleet's shared state runs on Redis: each one
/// round trip, atomic on the server, timed by the server's own clock
/// (`TIME`) so that every instance's decision uses one clock. Numbers are
/// microseconds; Redis' Lua has doubles, exact to 2⁵³ µs (285 years), and
/// values are written with `%.0f` so that none is shortened to an exponent.
///
/// The retry budget and the circuits count in buckets: a window of `W`
/// seconds is at most ten buckets of `ceil(W / 10)` seconds each (one
/// second for windows up to ten), so a script reads at most ten keys
/// whatever the window — an hour's window costs what ten seconds' does.
/// The window then slides a bucket at a time.
enum FleetScripts {
    /// The generic cell rate algorithm of `RateLimitCell`, on a hash of two
    /// fields: `t` (the theoretical arrival time) and `p` (paused until).
    /// KEYS[1]: the cell. ARGV: the interval (0: no limit of our own, only
    /// the server's pauses), the tolerance, the longest wait. Returns
    /// `{1, delay}` with the place reserved, or `{0, delay}`.
    static let reserve = """
        local clock = redis.call('TIME')
        local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
        local cell = redis.call('HMGET', KEYS[1], 't', 'p')
        local tat = tonumber(cell[1]) or 0
        local paused = tonumber(cell[2]) or 0
        local interval = tonumber(ARGV[1])
        local tolerance = tonumber(ARGV[2])
        local longest = tonumber(ARGV[3])
        local start = math.max(now, paused)
        if interval == 0 then
          local delay = start - now
          if delay <= longest then return {1, delay} end
          return {0, delay}
        end
        local arrival = math.max(tat, start)
        local delay = math.max(arrival - tolerance, start) - now
        if delay > longest then return {0, delay} end
        local next = arrival + interval
        redis.call('HSET', KEYS[1], 't', string.format('%.0f', next))
        redis.call('PEXPIREAT', KEYS[1], math.ceil(math.max(next, paused) / 1000) + 1000)
        return {1, delay}
        """

    /// A pause the server announced: `p` moves to now + ARGV[1] µs unless
    /// it is already later. KEYS[1]: the cell.
    static let pause = """
        local clock = redis.call('TIME')
        local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
        local cell = redis.call('HMGET', KEYS[1], 't', 'p')
        local tat = tonumber(cell[1]) or 0
        local paused = tonumber(cell[2]) or 0
        local untilTime = now + tonumber(ARGV[1])
        if untilTime > paused then
          paused = untilTime
          redis.call('HSET', KEYS[1], 'p', string.format('%.0f', paused))
        end
        redis.call('PEXPIREAT', KEYS[1], math.ceil(math.max(tat, paused) / 1000) + 1000)
        return 1
        """

    /// A call counted in the retry budget's window: `INCR` of the current
    /// bucket. KEYS[1]: the budget's base key. ARGV[1]: the window in seconds.
    /// Bucket keys are the base key and a suffix: one hash slot (the
    /// namespace's `{…}` tag).
    static let recordCall = """
        local window = tonumber(ARGV[1])
        local width = math.max(1, math.ceil(window / 10))
        local bucket = KEYS[1] .. ':c:' .. math.floor(tonumber(redis.call('TIME')[1]) / width)
        redis.call('INCR', bucket)
        redis.call('EXPIRE', bucket, window + width)
        return 1
        """

    /// A retry asked of the fleet's budget: the calls and retries of the
    /// window's buckets summed; the retry counted when it fits
    /// `minimum × window + ratio × calls`. KEYS[1]: the base key. ARGV: the
    /// window in seconds, the ratio in millionths, the minimum per second.
    /// Returns `{granted, calls, retries}`.
    static let withdrawRetry = """
        local window = tonumber(ARGV[1])
        local width = math.max(1, math.ceil(window / 10))
        local now = math.floor(tonumber(redis.call('TIME')[1]) / width)
        local calls, retries = 0, 0
        for b = now - math.ceil(window / width) + 1, now do
          calls = calls + (tonumber(redis.call('GET', KEYS[1] .. ':c:' .. b)) or 0)
          retries = retries + (tonumber(redis.call('GET', KEYS[1] .. ':r:' .. b)) or 0)
        end
        local allowed = tonumber(ARGV[3]) * window + tonumber(ARGV[2]) * calls / 1000000
        if retries + 1 > allowed then return {0, calls, retries} end
        local bucket = KEYS[1] .. ':r:' .. now
        redis.call('INCR', bucket)
        redis.call('EXPIRE', bucket, window + width)
        return {1, calls, retries + 1}
        """

    /// An outcome through a closed circuit, counted for the fleet; the
    /// circuit opened for everyone (`<base>:open`, expiring after the open
    /// duration) once the window's outcomes cross the threshold, and the
    /// window's buckets emptied so that counting starts afresh. KEYS[1]: the
    /// origin's base key. ARGV: the window in seconds, 1 for a failure,
    /// the minimum outcomes, the threshold in millionths, the open duration
    /// in milliseconds.
    static let recordOutcome = """
        local window = tonumber(ARGV[1])
        local width = math.max(1, math.ceil(window / 10))
        local now = math.floor(tonumber(redis.call('TIME')[1]) / width)
        local first = now - math.ceil(window / width) + 1
        local kind = ARGV[2] == '1' and ':f:' or ':s:'
        local bucket = KEYS[1] .. kind .. now
        redis.call('INCR', bucket)
        redis.call('EXPIRE', bucket, window + width)
        if redis.call('EXISTS', KEYS[1] .. ':open') == 1 then return 0 end
        local successes, failures = 0, 0
        for b = first, now do
          successes = successes + (tonumber(redis.call('GET', KEYS[1] .. ':s:' .. b)) or 0)
          failures = failures + (tonumber(redis.call('GET', KEYS[1] .. ':f:' .. b)) or 0)
        end
        local total = successes + failures
        if total < tonumber(ARGV[3]) or failures * 1000000 < tonumber(ARGV[4]) * total then return 0 end
        redis.call('SET', KEYS[1] .. ':open', '1', 'PX', tonumber(ARGV[5]))
        for b = first, now do
          redis.call('DEL', KEYS[1] .. ':s:' .. b, KEYS[1] .. ':f:' .. b)
        end
        return 1
        """

    /// A turn at refreshing the fleet's credential: when nobody holds the
    /// lock (`<base>:lock`), a new fencing token counted up in
    /// `<base>:fence` becomes the lock's value, for ARGV[1] milliseconds.
    /// KEYS[1]: the scope's base key. Returns the token, or 0 when the
    /// lock is held.
    static let acquireTurn = """
        local lock = KEYS[1] .. ':lock'
        if redis.call('EXISTS', lock) == 1 then return 0 end
        local fence = redis.call('INCR', KEYS[1] .. ':fence')
        redis.call('SET', lock, fence, 'PX', tonumber(ARGV[1]))
        return fence
        """

    /// A refreshed credential stored (`<base>:value`, fields `f`: the
    /// fencing token, `c`: the sealed credential) for ARGV[3] milliseconds —
    /// only by the lock's holder (ARGV[1] its token) and only over an older
    /// token's credential. KEYS[1]: the scope's base key. Returns 1 when stored.
    static let storeCredential = """
        if redis.call('GET', KEYS[1] .. ':lock') ~= ARGV[1] then return 0 end
        local value = KEYS[1] .. ':value'
        local written = tonumber(redis.call('HGET', value, 'f')) or 0
        if written >= tonumber(ARGV[1]) then return 0 end
        redis.call('HSET', value, 'f', ARGV[1], 'c', ARGV[2])
        redis.call('PEXPIRE', value, tonumber(ARGV[3]))
        return 1
        """

    /// The lock let go by its holder (ARGV[1] its token) alone.
    /// KEYS[1]: the scope's base key.
    static let releaseTurn = """
        local lock = KEYS[1] .. ':lock'
        if redis.call('GET', lock) ~= ARGV[1] then return 0 end
        return redis.call('DEL', lock)
        """
}
