package io.github.redislock.sample.stock;

/**
 * The units of a SKU available.
 *
 * @param sku the SKU
 * @param available the units available
 */
public record StockLevel(String sku, int available) {

}
