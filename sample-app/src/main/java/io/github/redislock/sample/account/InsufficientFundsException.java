package io.github.redislock.sample.account;

/**
 * Thrown when a transfer asks for more than the debited account holds.
 */
public class InsufficientFundsException extends RuntimeException {

	/**
	 * Creates an exception for the account.
	 * @param accountId the account to debit
	 * @param amount the amount asked for
	 * @param balance the account's balance
	 */
	public InsufficientFundsException(String accountId, long amount, long balance) {
		super("Cannot move " + amount + " from '" + accountId + "': its balance is " + balance);
	}

}
