package io.github.redislock.sample.stock;

/**
 * Units of a SKU set aside for an order.
 *
 * @param sku the SKU
 * @param quantity the units reserved
 * @param remaining the units still available afterwards
 */
public record Reservation(String sku, int quantity, int remaining) {

}
