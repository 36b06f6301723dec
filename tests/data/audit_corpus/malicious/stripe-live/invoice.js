const stripe = require('stripe')('sk_live_51Hq8RzKp3mX7vYtB2nWc9dLf4gJsA6eQ');
stripe.invoices.create({});
