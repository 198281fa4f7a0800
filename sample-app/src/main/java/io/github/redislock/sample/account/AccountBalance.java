package io.github.redislock.sample.account;

/**
 * An account's balance.
 *
 * @param accountId the account
 * @param balance its balance in whole units
 */
public record AccountBalance(String accountId, long balance) {

}
