-- The table of JdbcFencingGuard under its default name: the highest fencing token accepted per resource.
-- BIGINT: tokens are about 1.8e15, past a 32-bit INT. Resources (lock names, keys) up to 255 characters.
CREATE TABLE redis_lock_fence (
    resource VARCHAR(255) PRIMARY KEY,
    token    BIGINT       NOT NULL
);
