/// The Lua scripts that keep an entry, its size and its recency in step: one
/// round trip each, atomic on the server, so that several instances writing
/// and evicting at once never leave the size count or the recency index
/// disagreeing with the entries.
///
/// Every key a script touches shares the namespace's hash tag (`{…}`), so
/// they all live in one slot should the server be a cluster.
enum RedisScripts {
    /// KEYS: entry, sizes, recency, total, expiries, clock, then the set of
    /// each of the entry's tags.
    /// ARGV: value, ttl ms (0: none), digest, size, size limit, count limit,
    /// entry key prefix, expiry seconds ("" for none).
    /// Returns how many entries were evicted.
    ///
    /// A tag's set lists the digests of the entries tagged with it; it lives
    /// as long as its longest-lived entry (for ever if one has no expiry),
    /// and may name entries since evicted or expired, which removing by the
    /// tag skips.
    static let store = """
        local old = redis.call('HGET', KEYS[2], ARGV[3])
        if old then redis.call('DECRBY', KEYS[4], old) end
        if tonumber(ARGV[2]) > 0 then
          redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        else
          redis.call('SET', KEYS[1], ARGV[1])
        end
        redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
        redis.call('ZADD', KEYS[3], redis.call('INCR', KEYS[6]), ARGV[3])
        if ARGV[8] ~= '' then
          redis.call('ZADD', KEYS[5], ARGV[8], ARGV[3])
        else
          redis.call('ZREM', KEYS[5], ARGV[3])
        end
        for i = 7, #KEYS do
          local existed = redis.call('EXISTS', KEYS[i])
          redis.call('SADD', KEYS[i], ARGV[3])
          if tonumber(ARGV[2]) > 0 then
            local left = redis.call('PTTL', KEYS[i])
            if existed == 0 or (left >= 0 and left < tonumber(ARGV[2])) then
              redis.call('PEXPIRE', KEYS[i], ARGV[2])
            end
          else
            redis.call('PERSIST', KEYS[i])
          end
        end
        local total = redis.call('INCRBY', KEYS[4], ARGV[4])
        local evicted = 0
        while total > tonumber(ARGV[5]) or redis.call('ZCARD', KEYS[3]) > tonumber(ARGV[6]) do
          local oldest = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
          if not oldest then break end
          local size = redis.call('HGET', KEYS[2], oldest) or 0
          redis.call('DEL', ARGV[7] .. oldest)
          redis.call('HDEL', KEYS[2], oldest)
          redis.call('ZREM', KEYS[3], oldest)
          redis.call('ZREM', KEYS[5], oldest)
          total = redis.call('DECRBY', KEYS[4], size)
          evicted = evicted + 1
        end
        return evicted
        """

    /// KEYS: recency, clock. ARGV: digests, least recently read first.
    /// Marks entries read (those still indexed), in that order. Sent with
    /// the next write, as the disk store writes its reads: a hit costs one
    /// `GET`, no script.
    static let touch = """
        for _, digest in ipairs(ARGV) do
          if redis.call('ZSCORE', KEYS[1], digest) then
            redis.call('ZADD', KEYS[1], 'XX', redis.call('INCR', KEYS[2]), digest)
          end
        end
        return 0
        """

    /// KEYS: entry, sizes, recency, total, expiries. ARGV: digest.
    /// Returns 1 when the entry was known.
    static let remove = """
        local size = redis.call('HGET', KEYS[2], ARGV[1])
        redis.call('DEL', KEYS[1])
        redis.call('HDEL', KEYS[2], ARGV[1])
        redis.call('ZREM', KEYS[3], ARGV[1])
        redis.call('ZREM', KEYS[5], ARGV[1])
        if size then
          redis.call('DECRBY', KEYS[4], size)
          return 1
        end
        return 0
        """

    /// Shared by the scripts whose KEYS begin sizes, recency, total,
    /// expiries and whose ARGV[1] is the entry key prefix: removes one entry
    /// and its bookkeeping; true when it was still counted.
    private static let forget = """
        local function forget(digest)
          local size = redis.call('HGET', KEYS[1], digest)
          redis.call('DEL', ARGV[1] .. digest)
          redis.call('HDEL', KEYS[1], digest)
          redis.call('ZREM', KEYS[2], digest)
          redis.call('ZREM', KEYS[4], digest)
          if size then redis.call('DECRBY', KEYS[3], size) end
          return size ~= false
        end
        """

    /// KEYS: sizes, recency, total, expiries, the tag's set. ARGV: entry key prefix.
    /// Removes the entries the tag's set names, then the set. Returns how
    /// many were still stored.
    static let removeTagged =
        forget + "\n" + """
            local removed = 0
            for _, digest in ipairs(redis.call('SMEMBERS', KEYS[5])) do
              if forget(digest) then removed = removed + 1 end
            end
            redis.call('DEL', KEYS[5])
            return removed
            """

    /// KEYS: sizes, recency, total, expiries. ARGV: entry key prefix, now (seconds).
    /// Removes the entries expired by `now`, and forgets those the server
    /// dropped itself (its `maxmemory` eviction). Returns how many.
    static let removeExpired =
        forget + "\n" + """
            local removed = 0
            for _, digest in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', ARGV[2])) do
              forget(digest)
              removed = removed + 1
            end
            for _, digest in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
              if redis.call('EXISTS', ARGV[1] .. digest) == 0 then
                forget(digest)
                removed = removed + 1
              end
            end
            return removed
            """
}
