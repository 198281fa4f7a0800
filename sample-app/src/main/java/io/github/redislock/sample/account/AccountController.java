package io.github.redislock.sample.account;

import java.util.List;

import org.springframework.util.Assert;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Accounts over HTTP: open one, read its balance, transfer between two.
 */
@RestController
@RequestMapping("/accounts")
public class AccountController {

	private final AccountService accounts;

	private final AccountRepository repository;

	AccountController(AccountService accounts, AccountRepository repository) {
		this.accounts = accounts;
		this.repository = repository;
	}

	@PutMapping("/{accountId}")
	AccountBalance open(@PathVariable String accountId, @RequestBody BalanceRequest request) {
		return this.accounts.open(accountId, request.balance());
	}

	@GetMapping("/{accountId}")
	AccountBalance balance(@PathVariable String accountId) {
		return new AccountBalance(accountId, this.repository.balance(accountId));
	}

	@PostMapping("/transfer")
	TransferReceipt transfer(@RequestBody TransferRequest request) {
		return this.accounts.transfer(request.accountIds(), request.amount());
	}

	/**
	 * The balance to open an account with.
	 *
	 * @param balance the balance in whole units
	 */
	record BalanceRequest(long balance) {

	}

	/**
	 * A transfer to make.
	 *
	 * @param from the account to debit
	 * @param to the account to credit
	 * @param amount the amount in whole units
	 */
	record TransferRequest(String from, String to, long amount) {

		/** The account to debit, then the account to credit. */
		List<String> accountIds() {
			Assert.hasText(this.from, "from must name the account to debit");
			Assert.hasText(this.to, "to must name the account to credit");
			return List.of(this.from, this.to);
		}

	}

}
