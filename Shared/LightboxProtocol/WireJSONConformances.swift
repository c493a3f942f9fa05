import Foundation

// The replies apps and the owner's surface ask for most (asset pages, statuses, descriptions), and the audit batches the picker sends
// auth for every read, written without JSONEncoder (see
// `WireJSONWritable`). A new field must be written here too: `WireJSONTests` compares each with
// the encoder's JSON of a fully populated value.

extension ReplyEnvelope: WireJSONWritable where Body: WireJSONWritable {
    public func write(to json: inout WireJSONWriter) throws {
        try json.object {
            $0.member("v", v)
            $0.member("id", id)
            $0.member("status", status)
            try $0.member("body", body)
        }
    }
}

extension RequestEnvelope: WireJSONWritable where Body: WireJSONWritable {
    public func write(to json: inout WireJSONWriter) throws {
        try json.object {
            $0.member("v", v)
            $0.member("id", id)
            $0.member("op", op)
            try $0.member("body", body)
        }
    }
}

extension AuditRecordRequest: WireJSONWritable {
    public func write(to json: inout WireJSONWriter) throws {
        try json.object { try $0.member("entries", entries) }
    }
}

extension AuditEntry: WireJSONWritable {
    public func write(to json: inout WireJSONWriter) throws {
        try json.object {
            $0.member("id", id)
            $0.member("app", app)
            $0.member("operation", operation)
            $0.member("assetCount", assetCount)
            $0.member("outcome", outcome)
            try $0.member("at", at)
            $0.member("bytes", bytes)
            $0.member("asset", asset)
            $0.member("times", times)
            try $0.member("lastAt", lastAt)
        }
    }
}

extension AssetSummary: WireJSONWritable {
    public func write(to json: inout WireJSONWriter) throws {
        try json.object {
            $0.member("identifier", identifier)
            $0.member("fileName", fileName)
            $0.member("type", type)
            $0.member("mediaType", mediaType)
            $0.member("subtypes", subtypes)
            $0.member("pixelWidth", pixelWidth)
            $0.member("pixelHeight", pixelHeight)
            try $0.member("duration", duration)
            $0.member("fileSize", fileSize)
            try $0.member("creationDate", creationDate)
            $0.member("isInCloud", isInCloud)
        }
    }
}

extension FetchAssetsResponse: WireJSONWritable {
    public func write(to json: inout WireJSONWriter) throws {
        try json.object {
            try $0.member("assets", assets)
            $0.member("total", total)
            $0.member("next", next)
        }
    }
}

extension ListAssetsResponse: WireJSONWritable {
    public func write(to json: inout WireJSONWriter) throws {
        try json.object {
            try $0.member("assets", assets)
            $0.member("next", next)
        }
    }
}

extension ImageResultInfo: WireJSONWritable {
    public func write(to json: inout WireJSONWriter) throws {
        json.object {
            $0.member("isDegraded", isDegraded)
            $0.member("isInCloud", isInCloud)
            $0.member("isCancelled", isCancelled)
            $0.member("type", type)
            $0.member("pixelWidth", pixelWidth)
            $0.member("pixelHeight", pixelHeight)
        }
    }
}

extension StatusResponse: WireJSONWritable {
    public func write(to json: inout WireJSONWriter) throws {
        json.object {
            $0.member("level", level)
            $0.member("status", status)
        }
    }
}

extension ServiceIdentity: WireJSONWritable {
    public func write(to json: inout WireJSONWriter) throws {
        json.object {
            $0.member("service", service)
            $0.member("principal", principal)
        }
    }
}

extension ProviderDescription: WireJSONWritable {
    public func write(to json: inout WireJSONWriter) throws {
        try json.object {
            $0.member("registeredTypeIdentifiers", registeredTypeIdentifiers)
            $0.member("suggestedName", suggestedName)
            $0.member("fileSize", fileSize)
            try $0.member("properties", properties)
            try $0.member("imageProperties", imageProperties)
        }
    }
}

extension ImageProperties: WireJSONWritable {
    public func write(to json: inout WireJSONWriter) throws {
        try json.object {
            // ImageIO's key names (see ImageProperties.CodingKeys).
            $0.member("PixelWidth", pixelWidth)
            $0.member("PixelHeight", pixelHeight)
            $0.member("IsAnimated", isAnimated)
            $0.member("FrameCount", frameCount)
            try $0.member("Duration", duration)
            try $0.member("CreationDate", creationDate)
        }
    }
}

extension JSONValue: WireJSONWritable {
    public func write(to json: inout WireJSONWriter) throws {
        switch self {
        case .null: json.null()
        case .bool(let value): json.bool(value)
        case .number(let value): try json.number(value)
        case .string(let value): json.string(value)
        case .array(let values): try json.array(values) { try $1.write(to: &$0) }
        case .object(let members): try json.object(members)
        }
    }
}

extension ImagePropertiesResponse: WireJSONWritable {
    public func write(to json: inout WireJSONWriter) throws {
        try json.object {
            $0.member("asset", asset)
            try $0.member("properties", properties)
        }
    }
}
