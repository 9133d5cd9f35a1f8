-- wrk script: POST /orders with ids no other thread or run uses.
--   wrk ... -s post-orders.lua -- BASE [ACK_DIR]
-- Thread t posts ids BASE + t * 10^8 + 1, + 2, ...; with ACK_DIR, every id the service
-- acknowledged (201) is appended to ACK_DIR/acks-<t>.txt, one per line, flushed per line, so
-- the file survives the service being killed mid-run.
local threads = {}

function setup(thread)
    table.insert(threads, thread)
    thread:set("tid", #threads)
end

function init(args)
    base = tonumber(args[1] or "0")
    counter = 0
    if args[2] then
        acks = io.open(args[2] .. "/acks-" .. tid .. ".txt", "a")
        acks:setvbuf("line")
    end
    wrk.method = "POST"
    wrk.headers["Content-Type"] = "application/json"
end

function request()
    counter = counter + 1
    local id = base + tid * 100000000 + counter
    return wrk.format(nil, "/orders", nil,
        string.format('{"id":%d,"item":"item-%d","quantity":%d,"status":"open"}', id, id % 1000, id % 7))
end

function response(status, headers, body)
    if acks and status == 201 then
        local id = body:match('"id":(%d+)')
        if id then acks:write(id, "\n") end
    end
end
