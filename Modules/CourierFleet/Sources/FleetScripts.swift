/// The Lua scripts the fleet's shared state runs on Redis: each one
/// round trip, atomic on the server, timed by the server's own clock
/// (`TIME`) so that every instance's decision uses one clock. Numbers are
/// microseconds; Redis' Lua has doubles, exact to 2⁵³ µs (285 years), and
/// values are written with `%.0f` so that none is shortened to an exponent.
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

    /// A call counted in the retry budget's window: `INCR` of this second's
    /// bucket. KEYS[1]: the budget's base key. ARGV[1]: the window in seconds.
    /// Bucket keys are the base key and a suffix: one hash slot (the
    /// namespace's `{…}` tag).
    static let recordCall = """
        local second = tonumber(redis.call('TIME')[1])
        local bucket = KEYS[1] .. ':c:' .. second
        redis.call('INCR', bucket)
        redis.call('EXPIRE', bucket, tonumber(ARGV[1]) + 1)
        return 1
        """

    /// A retry asked of the fleet's budget: the calls and retries of the
    /// window's buckets summed; the retry counted when it fits
    /// `minimum × window + ratio × calls`. KEYS[1]: the base key. ARGV: the
    /// window in seconds, the ratio in millionths, the minimum per second.
    /// Returns `{granted, calls, retries}`.
    static let withdrawRetry = """
        local second = tonumber(redis.call('TIME')[1])
        local window = tonumber(ARGV[1])
        local calls, retries = 0, 0
        for s = second - window + 1, second do
          calls = calls + (tonumber(redis.call('GET', KEYS[1] .. ':c:' .. s)) or 0)
          retries = retries + (tonumber(redis.call('GET', KEYS[1] .. ':r:' .. s)) or 0)
        end
        local allowed = tonumber(ARGV[3]) * window + tonumber(ARGV[2]) * calls / 1000000
        if retries + 1 > allowed then return {0, calls, retries} end
        local bucket = KEYS[1] .. ':r:' .. second
        redis.call('INCR', bucket)
        redis.call('EXPIRE', bucket, window + 1)
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
        local second = tonumber(redis.call('TIME')[1])
        local window = tonumber(ARGV[1])
        local kind = ARGV[2] == '1' and ':f:' or ':s:'
        local bucket = KEYS[1] .. kind .. second
        redis.call('INCR', bucket)
        redis.call('EXPIRE', bucket, window + 1)
        if redis.call('EXISTS', KEYS[1] .. ':open') == 1 then return 0 end
        local successes, failures = 0, 0
        for s = second - window + 1, second do
          successes = successes + (tonumber(redis.call('GET', KEYS[1] .. ':s:' .. s)) or 0)
          failures = failures + (tonumber(redis.call('GET', KEYS[1] .. ':f:' .. s)) or 0)
        end
        local total = successes + failures
        if total < tonumber(ARGV[3]) or failures * 1000000 < tonumber(ARGV[4]) * total then return 0 end
        redis.call('SET', KEYS[1] .. ':open', '1', 'PX', tonumber(ARGV[5]))
        for s = second - window + 1, second do
          redis.call('DEL', KEYS[1] .. ':s:' .. s, KEYS[1] .. ':f:' .. s)
        end
        return 1
        """
}
