package io.github.redislock.sample.account;

import java.util.Map;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Repository;

/**
 * Account balances in Redis: one string key per account, {@code sample:account:<id>},
 * holding the balance in whole units. Whoever reads balances, decides and writes them
 * back must hold the accounts' locks.
 */
@Repository
public class AccountRepository {

	/** What every account key starts with. */
	public static final String KEY_PREFIX = "sample:account:";

	private final StringRedisTemplate redis;

	AccountRepository(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/**
	 * The account's balance.
	 * @throws UnknownAccountException if the account was never opened
	 */
	public long balance(String accountId) {
		String balance = this.redis.opsForValue().get(key(accountId));
		if (balance == null) {
			throw new UnknownAccountException(accountId);
		}
		return Long.parseLong(balance);
	}

	/** Sets the account's balance, opening the account if needed. */
	public void save(String accountId, long balance) {
		this.redis.opsForValue().set(key(accountId), Long.toString(balance));
	}

	/**
	 * Sets two balances in one MSET, so that no reader and no crash ever sees money that
	 * left one account without arriving in the other.
	 */
	public void saveBoth(String firstId, long firstBalance, String secondId, long secondBalance) {
		this.redis.opsForValue()
			.multiSet(Map.of(key(firstId), Long.toString(firstBalance), key(secondId), Long.toString(secondBalance)));
	}

	private static String key(String accountId) {
		return KEY_PREFIX + accountId;
	}

}
