-- Keys issued with every scope of the first version (approval, rotation of a full key) keep every
-- scope: they gain the four scopes added with key management, agent keys, webhooks and disputes.
UPDATE `api_keys` SET `scopes` = `scopes` || ' keys:write identity:write webhooks:write disputes:write'
WHERE `scopes` = 'agents:read agents:write transactions:write verify:write';
