package workshop

// EventPing is the test delivery's event, sent from the developer
// settings to one registration: its data is {"webhook_id": ...}. It is not
// in EventNames, so no registration subscribes to it and a fan-out never
// sends it anywhere; the one delivery is made for the registration asked.
const EventPing = "ping"
