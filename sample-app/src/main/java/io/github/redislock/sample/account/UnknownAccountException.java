package io.github.redislock.sample.account;

/**
 * Thrown when an account that was never opened is used.
 */
public class UnknownAccountException extends RuntimeException {

	/**
	 * Creates an exception for the account.
	 * @param accountId the account
	 */
	public UnknownAccountException(String accountId) {
		super("No account '" + accountId + "'");
	}

}
