package io.github.redislock.sample.account;

/**
 * A completed transfer.
 *
 * @param from the debited account
 * @param to the credited account
 * @param amount the amount moved
 * @param fromBalance the debited account's balance afterwards
 * @param toBalance the credited account's balance afterwards
 */
public record TransferReceipt(String from, String to, long amount, long fromBalance, long toBalance) {

}
