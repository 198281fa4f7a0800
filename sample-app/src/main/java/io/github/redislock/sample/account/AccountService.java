package io.github.redislock.sample.account;

import java.util.List;

import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.annotation.DistributedLock;

import org.springframework.stereotype.Service;
import org.springframework.util.Assert;

/**
 * Opens accounts and moves money between them, each under the locks of the accounts it
 * touches ({@code account:<id>}).
 */
@Service
public class AccountService {

	private final AccountRepository repository;

	AccountService(AccountRepository repository) {
		this.repository = repository;
	}

	/**
	 * Opens an account with a balance, or sets the balance of an existing one, while
	 * holding its lock, so that it never lands in the middle of a transfer.
	 * @param accountId the account
	 * @param balance the balance, not negative
	 * @return the account's balance
	 * @throws LockNotAcquiredException if a transfer held the account's lock for longer
	 * than {@code sample.accounts.lock-wait}
	 */
	@DistributedLock(name = "account", key = "#accountId", waitTime = "${sample.accounts.lock-wait:2s}")
	public AccountBalance open(String accountId, long balance) {
		Assert.isTrue(balance >= 0, () -> "balance must not be negative, was " + balance);
		this.repository.save(accountId, balance);
		return new AccountBalance(accountId, balance);
	}

	/**
	 * Moves money from one account to another while holding both accounts' locks. The key
	 * is a collection, so both locks are taken at once, all or none, in sorted order: a
	 * transfer from A to B and one from B to A cannot deadlock.
	 * @param accountIds the account to debit, then the account to credit
	 * @param amount the amount to move, at least 1
	 * @return the receipt
	 * @throws UnknownAccountException if either account was never opened
	 * @throws InsufficientFundsException if the debited account holds less than the
	 * amount
	 * @throws LockNotAcquiredException if either lock was held for longer than
	 * {@code sample.accounts.lock-wait}
	 */
	@DistributedLock(name = "account", key = "#accountIds", waitTime = "${sample.accounts.lock-wait:2s}")
	public TransferReceipt transfer(List<String> accountIds, long amount) {
		Assert.isTrue(accountIds.size() == 2, () -> "a transfer needs two accounts, got " + accountIds);
		String from = accountIds.get(0);
		String to = accountIds.get(1);
		Assert.isTrue(!from.equals(to), () -> "a transfer needs two different accounts, got '" + from + "' twice");
		Assert.isTrue(amount > 0, () -> "amount must be at least 1, was " + amount);
		long fromBalance = this.repository.balance(from);
		long toBalance = this.repository.balance(to);
		if (fromBalance < amount) {
			throw new InsufficientFundsException(from, amount, fromBalance);
		}
		this.repository.saveBoth(from, fromBalance - amount, to, toBalance + amount);
		return new TransferReceipt(from, to, amount, fromBalance - amount, toBalance + amount);
	}

}
