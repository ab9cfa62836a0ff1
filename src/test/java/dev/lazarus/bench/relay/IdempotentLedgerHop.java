package dev.lazarus.bench.relay;

import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.TextMessage;
import java.util.UUID;

/**
 * A hop of the idempotent ledger relay: no transaction around the delivery. The ledger's statements commit first in a
 * transaction of their own (the database alone: one phase), then the next message is sent with a duplicate-detection
 * id derived from the item and its hop, and the resource adapter acknowledges the message last. A redelivery after a
 * crash finds the hop recorded, sends again (the broker drops the duplicate) and is acknowledged.
 */
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public abstract class IdempotentLedgerHop extends LedgerHop {

    public static final String FIRST = "bench.idemledger.1";
    public static final String SECOND = "bench.idemledger.2";
    public static final String THIRD = "bench.idemledger.3";
    public static final String DONE = "bench.idemledger.done";

    /** Artemis's duplicate-detection property. */
    static final String DUPLICATE_ID = "_AMQ_DUPL_ID";

    /** Declared here, so that this class's {@code NOT_SUPPORTED} applies to it (an attribute covers its own class's methods). */
    @Override
    public void onMessage(jakarta.jms.Message message) {
        super.onMessage(message);
    }

    @Override
    protected void relay(UUID item, int hop) throws JMSException {
        ledger.advanceAlone(item, hop); // a replay (REPLAY) sends again all the same
        TextMessage next = jms.createTextMessage(item + ":" + (hop + 1));
        next.setStringProperty(DUPLICATE_ID, item + ":" + (hop + 1));
        jms.createProducer().setDeliveryMode(DeliveryMode.PERSISTENT).send(next(), next);
    }
}
