// @ts-check
// The price rule pricing-api applies and the harness expects: 5% off from 5
// items, rounded down to the cent. One definition for both sides.

/** @param {number} unitCents @param {number} quantity */
export function orderTotalCents (unitCents, quantity) {
  const gross = unitCents * quantity
  return quantity >= 5 ? Math.floor(gross * 0.95) : gross
}

/** Quantities an order may ask for. */
export const MAX_QUANTITY = 10
