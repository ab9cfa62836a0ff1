package dev.lazarus.bench.relay;

import jakarta.jms.DeliveryMode;
import java.util.UUID;

/**
 * A hop of the XA ledger relay: in the container's XA transaction, the ledger's two statements, the send and the
 * acknowledgement commit together (two phases: the database and the broker). The leanest XA path a step can take.
 */
public abstract class XaLedgerHop extends LedgerHop {

    public static final String FIRST = "bench.xaledger.1";
    public static final String SECOND = "bench.xaledger.2";
    public static final String THIRD = "bench.xaledger.3";
    public static final String DONE = "bench.xaledger.done";

    @Override
    protected void relay(UUID item, int hop) {
        ledger.advanceInCallersTransaction(item, hop);
        jms.createProducer().setDeliveryMode(DeliveryMode.PERSISTENT).send(next(), item + ":" + (hop + 1));
    }
}
